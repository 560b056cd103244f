"""What the shop page lists: a category's newest items, or the bot's hybrid search.

Reads go through the tenant's context (RLS underneath) and filter by tenant in SQL too.
Listing pages never count the whole catalog: one extra row says whether a next page
exists, so a 100,000-item shop costs the same as a ten-item one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from uuid import UUID

from django.db.models import Q

from tenants.accessors import tenant_scope
from tenants.errors import NotFound
from tulia.commerce.models import CatalogItem, Category, Variant
from tulia.commerce.search import SearchFilters, search_catalog

PAGE_SIZE = 12
MAX_PAGE = 500
SEARCH_RESULTS = PAGE_SIZE  # page weight: every card has a thumbnail
# The listing needs only these columns (never the 384-float embedding).
CARD_FIELDS = ("id", "name", "brand", "price", "in_stock", "image_url", "updated_at")
SEARCH_MATERIAL = ("embedding", "search_vector", "search_text")


@dataclass(frozen=True)
class Card:
    item: CatalogItem
    price_from: Decimal


@dataclass(frozen=True)
class Listing:
    cards: list[Card]
    categories: list[Category]
    category: Category | None = None
    page: int = 1
    has_next: bool = False
    query: str = ""


@dataclass(frozen=True)
class Product:
    item: CatalogItem
    variants: list[Variant] = field(default_factory=list)

    def in_stock_variants(self) -> list[Variant]:
        return [v for v in self.variants if v.is_available]

    def label(self, variant: Variant) -> str:
        """What tells this variant from its siblings ("42", not "black, 42"), the way
        the bot names it; every attribute when none varies."""
        keys = sorted({key for v in self.variants for key in v.attributes})
        varying = [k for k in keys if len({str(v.attributes.get(k)) for v in self.variants}) > 1]
        shown = varying or keys
        return ", ".join(str(variant.attributes[k]) for k in shown if k in variant.attributes) or (
            variant.sku
        )

    @property
    def price_from(self) -> Decimal:
        return min([v.unit_price() for v in self.variants] or [self.item.price])


def _categories(tid: UUID) -> list[Category]:
    return list(Category.objects.filter(tenant_id=tid, parent__isnull=True).order_by("name"))


def _cards(tid: UUID, items: list[CatalogItem]) -> list[Card]:
    """Each item's lowest price, its variants' included (one query for the page)."""
    lowest: dict[int, Decimal] = {}
    variants = Variant.objects.filter(
        tenant_id=tid, item_id__in=[i.pk for i in items], is_active=True, price__isnull=False
    ).values_list("item_id", "price")
    for item_id, price in variants:
        lowest[item_id] = min(price, lowest.get(item_id, price))
    return [Card(i, min(i.price, lowest.get(i.pk, i.price))) for i in items]


def browse(tenant_id: UUID | str, category_slug: str = "", page: int = 1) -> Listing:
    page = max(1, min(page, MAX_PAGE))
    with tenant_scope(tenant_id) as tid:
        categories = _categories(tid)
        items = CatalogItem.objects.filter(tenant_id=tid, is_active=True)
        category = None
        if category_slug:
            category = Category.objects.filter(tenant_id=tid, slug=category_slug).first()
            if category is None:
                return Listing([], categories, page=page)
            items = items.filter(Q(category=category) | Q(category__parent=category))
        start = (page - 1) * PAGE_SIZE
        rows = list(items.only(*CARD_FIELDS).order_by("-id")[start : start + PAGE_SIZE + 1])
        cards = _cards(tid, rows[:PAGE_SIZE])
    return Listing(cards, categories, category, page, has_next=len(rows) > PAGE_SIZE)


def search(tenant_id: UUID | str, query: str, category_slug: str = "") -> Listing:
    """The chat's own catalog search (full text + vectors), more results per page."""
    filters = SearchFilters(category=category_slug or None)
    found = search_catalog(tenant_id, query, filters, limit=SEARCH_RESULTS)
    with tenant_scope(tenant_id) as tid:
        categories = _categories(tid)
        cards = _cards(tid, [hit.item for hit in found.hits])
    return Listing(cards, categories, query=query)


def product(tenant_id: UUID | str, item_id: int) -> Product:
    """An active item of this tenant with its active variants, or NotFound."""
    with tenant_scope(tenant_id) as tid:
        found = CatalogItem.objects.defer(*SEARCH_MATERIAL).filter(tenant_id=tid, is_active=True)
        item = found.filter(pk=item_id).first()
        if item is None:
            raise NotFound("item not found")
        variants = list(
            Variant.objects.filter(tenant_id=tid, item=item, is_active=True).order_by("id")
        )
    for variant in variants:
        variant.item = item  # unit_price() reads the item's price without a query
    return Product(item, variants)
