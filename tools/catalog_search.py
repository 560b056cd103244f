"""catalog_search: at most six matching items, how many matched, and how sure we are."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from tenants.accessors import get_tenant
from tools.contract import Tool, ToolInput, ToolOutput
from tulia.commerce.models import CatalogItem, Variant
from tulia.commerce.search import MAX_RESULTS, Hit, SearchFilters, search_catalog
from tulia.storefront.links import catalog_link


class CatalogSearchInput(ToolInput):
    query: str = Field(default="", max_length=200, description="What the customer asked for")
    category: str | None = Field(default=None, max_length=80)
    min_price: Decimal | None = Field(default=None, ge=0, max_digits=12, decimal_places=2)
    max_price: Decimal | None = Field(default=None, ge=0, max_digits=12, decimal_places=2)
    in_stock: bool = False
    attributes: dict[str, str] = Field(
        default_factory=dict, max_length=5, description='e.g. {"size": "42", "colour": "black"}'
    )


class ItemSummary(ToolOutput):
    item_id: int
    name: str
    brand: str
    category: str | None
    price_from: Decimal
    price_to: Decimal
    in_stock: bool
    options: dict[str, list[str]]
    image_url: str
    link_url: str


class CatalogSearchOutput(ToolOutput):
    results: list[ItemSummary] = Field(max_length=MAX_RESULTS)
    total_estimate: int
    confidence: float
    catalog_link: str
    alternatives: list[ItemSummary] = Field(
        default_factory=list,
        max_length=MAX_RESULTS,
        description="In stock, close to the request but not it: offer only as alternatives",
    )


def _summary(item: CatalogItem, variants: list[Variant]) -> ItemSummary:
    prices = [v.price if v.price is not None else item.price for v in variants] or [item.price]
    options: dict[str, set[str]] = {}
    for variant in variants:
        if variant.is_available:
            for key, value in variant.attributes.items():
                options.setdefault(str(key), set()).add(str(value))
    stocked = any(v.is_available for v in variants) if variants else item.is_available
    return ItemSummary(
        item_id=item.pk,
        name=item.name,
        brand=item.brand,
        category=item.category.name if item.category_id and item.category else None,
        price_from=min(prices),
        price_to=max(prices),
        in_stock=stocked,
        options={key: sorted(values) for key, values in options.items()},
        image_url=item.image_url,
        link_url=item.link_url,
    )


def run(data: CatalogSearchInput) -> CatalogSearchOutput:
    filters = SearchFilters(
        category=data.category,
        min_price=data.min_price,
        max_price=data.max_price,
        in_stock=data.in_stock,
        attributes=dict(data.attributes),
    )
    found = search_catalog(data.tenant_id, data.query, filters)
    ids = [hit.item.pk for hit in [*found.hits, *found.alternatives]]
    variants: dict[int, list[Variant]] = {}
    for variant in Variant.objects.filter(item_id__in=ids, is_active=True).order_by("id"):
        variants.setdefault(variant.item_id, []).append(variant)

    def summaries(hits: list[Hit]) -> list[ItemSummary]:
        return [_summary(hit.item, variants.get(hit.item.pk, [])) for hit in hits]

    return CatalogSearchOutput(
        results=summaries(found.hits),
        total_estimate=found.total_estimate,
        confidence=found.confidence,
        catalog_link=catalog_link(get_tenant(data.tenant_id)),
        alternatives=summaries(found.alternatives),
    )


TOOL = Tool(
    name="catalog_search",
    description=(
        "Search the shop's catalog (any language, typos fine) with optional category, price "
        "range, in-stock and attribute filters. Returns at most 6 items, an estimate of all "
        "matches and a confidence; use the catalog link when confidence is low or many match. "
        "No results means the shop does not sell it: say so, and offer the alternatives "
        "(in stock, close but not the same) when there are any."
    ),
    input_model=CatalogSearchInput,
    output_model=CatalogSearchOutput,
    run=run,
)
