"""catalog_get_item: the authoritative details of one item, variants and stock included."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field

from tenants.accessors import get_owned
from tenants.errors import NotFound
from tools.contract import Tool, ToolInput, ToolOutput
from tulia.commerce.models import CatalogItem, Variant

NOT_COUNTED = "How many are left; null when the shop does not count it (available, no number)."


class CatalogGetItemInput(ToolInput):
    item_id: int = Field(gt=0)


class VariantOut(ToolOutput):
    variant_id: int
    sku: str
    attributes: dict[str, Any]
    price: Decimal
    in_stock: bool
    stock: int | None = Field(description=NOT_COUNTED)


class CatalogGetItemOutput(ToolOutput):
    item_id: int
    sku: str
    name: str
    description: str
    brand: str
    category: str | None
    price: Decimal
    currency: str = "KES"
    in_stock: bool
    stock: int | None = Field(description=NOT_COUNTED)
    attributes: dict[str, Any]
    image_url: str
    link_url: str
    variants: list[VariantOut]


def _variant(variant: Variant, item: CatalogItem) -> VariantOut:
    price = variant.price if variant.price is not None else item.price
    return VariantOut(
        variant_id=variant.pk,
        sku=variant.sku,
        attributes=variant.attributes,
        price=price,
        in_stock=variant.is_available,
        stock=variant.counted_stock,
    )


def run(data: CatalogGetItemInput) -> CatalogGetItemOutput:
    item = get_owned(CatalogItem, data.tenant_id, data.item_id)
    if not item.is_active:
        raise NotFound("item not found")
    variants = [_variant(v, item) for v in item.variants.filter(is_active=True).order_by("id")]
    if variants:
        counts = [v.stock for v in variants]
        stock = None if None in counts else sum(c for c in counts if c is not None)
        in_stock = any(v.in_stock for v in variants)
    else:
        stock, in_stock = item.counted_stock, item.is_available
    return CatalogGetItemOutput(
        item_id=item.pk,
        sku=item.sku,
        name=item.name,
        description=item.description,
        brand=item.brand,
        category=item.category.name if item.category_id and item.category else None,
        price=item.price,
        in_stock=in_stock,
        stock=stock,
        attributes=item.attributes,
        image_url=item.image_url,
        link_url=item.link_url,
        variants=variants,
    )


TOOL = Tool(
    name="catalog_get_item",
    description="Get one catalog item's exact price, stock, sizes/colours and links by its id.",
    input_model=CatalogGetItemInput,
    output_model=CatalogGetItemOutput,
    run=run,
)
