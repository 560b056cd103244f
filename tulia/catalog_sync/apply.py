"""Applying upstream state to our catalog: newer wins, stock by its owner, deletes by rule.

Every function runs inside the tenant's context and a transaction, with the mapping row
locked, so two deliveries about one product apply one after the other and the one with
the older `updated_at` loses whichever arrives last. The answer lists what changed, so a
reconcile can report drift with the same code that webhooks use.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from tulia.catalog_sync.models import (
    ConflictKind,
    ExternalProduct,
    ExternalVariant,
    StockLevel,
    StockOwner,
    StoreConnection,
    SyncConflict,
)
from tulia.catalog_sync.upstream import Level, UpstreamProduct, UpstreamVariant
from tulia.commerce.models import CatalogItem, OrderLine, OrderStatus, Variant

ITEM_FIELDS = (
    "name",
    "description",
    "brand",
    "image_url",
    "link_url",
    "is_active",
    "price",
    "stock",
    "stock_tracked",
)
VARIANT_FIELDS = ("attributes", "price", "stock", "stock_tracked", "is_active")
OPEN_ORDER = frozenset(set(OrderStatus.values) - {OrderStatus.DELIVERED, OrderStatus.CANCELLED})
_TAGS = re.compile(r"<[^>]+>")


@dataclass
class Applied:
    item_id: int | None = None
    stale: bool = False
    # Same `updated_at` as the state we hold, but different: which is newer cannot be
    # told from the event, so nothing was applied and the caller asks the store.
    tie: bool = False
    created: bool = False
    changes: list[str] = field(default_factory=list)  # what we changed to match upstream
    kept: list[str] = field(default_factory=list)  # differences we keep (we own stock)


def _text(value: str, limit: int) -> str:
    return " ".join(html.unescape(_TAGS.sub(" ", value)).split())[:limit]


def _url(value: str) -> str:
    return value if value.startswith(("https://", "http://")) and len(value) <= 400 else ""


def _shillings(connection: StoreConnection, external_id: str, amount: Decimal) -> Decimal:
    whole = amount.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    if whole != amount:
        raise_conflict(
            connection,
            ConflictKind.PRICE_NOT_WHOLE,
            external_id,
            None,
            f"price {amount} is not whole shillings; quoted as {whole}",
        )
    return whole


def raise_conflict(
    connection: StoreConnection, kind: str, external_id: str, item_id: int | None, detail: str
) -> None:
    """Queue a conflict for the admin; an open one of the same kind is not repeated."""
    try:
        with transaction.atomic():
            SyncConflict.objects.create(
                tenant_id=connection.tenant_id,
                connection=connection,
                kind=kind,
                external_id=external_id,
                item_id=item_id,
                detail=detail[:400],
            )
    except IntegrityError:
        pass


def _locked_mapping(connection: StoreConnection, external_id: str) -> ExternalProduct | None:
    return (
        ExternalProduct.objects.select_for_update()
        .filter(tenant_id=connection.tenant_id, connection=connection, external_id=external_id)
        .first()
    )


def _is_stale(mapping: ExternalProduct | None, at: datetime, *, exists_now: bool) -> bool:
    if mapping is None or at >= mapping.upstream_updated_at:
        return False
    # A product seen to exist now (reconcile, a restore) revives a deleted mapping.
    return not (mapping.deleted_upstream and exists_now)


def apply_product(
    connection: StoreConnection, product: UpstreamProduct, *, exists_now: bool = False
) -> Applied:
    """Create or update the item (and variants) from `product` unless we hold newer.

    `exists_now`: `product` is the store's state as of now (an import, a reconcile, a
    fetch), so it wins a tie. An event with the same second as the state we hold is
    applied only if it changes nothing; otherwise it is a tie (Shopify and WooCommerce
    stamp whole seconds, so two quick edits can share one)."""
    mapping = _locked_mapping(connection, product.external_id)
    if _is_stale(mapping, product.updated_at, exists_now=exists_now):
        return Applied(item_id=mapping.item_id if mapping else None, stale=True)
    if exists_now or mapping is None or product.updated_at != mapping.upstream_updated_at:
        return _apply_product(connection, mapping, product)
    with transaction.atomic():  # a savepoint: the tied event's writes are undone
        applied = _apply_product(connection, mapping, product)
        if applied.changes:
            transaction.set_rollback(True)
            return Applied(item_id=mapping.item_id, tie=True)
    return applied


def _apply_product(
    connection: StoreConnection, mapping: ExternalProduct | None, product: UpstreamProduct
) -> Applied:
    if mapping is None:
        mapping = ExternalProduct(
            tenant_id=connection.tenant_id, connection=connection, external_id=product.external_id
        )
    item = mapping.item or CatalogItem(
        tenant_id=connection.tenant_id, sku=f"{connection.prefix}{product.external_id}"[:64]
    )
    applied = Applied()
    first_time = item.pk is None
    _fill_item(connection, item, product, applied, first_time=first_time)
    if first_time or applied.changes:
        _persist(item, ITEM_FIELDS)
    newest = max(product.updated_at, mapping.upstream_updated_at or product.updated_at)
    state = (item.pk, False, newest)
    if (
        mapping.pk is None
        or (mapping.item_id, mapping.deleted_upstream, mapping.upstream_updated_at) != state
    ):
        mapping.item, mapping.deleted_upstream, mapping.upstream_updated_at = item, False, newest
        mapping.save()
    _apply_variants(connection, mapping, item, product, applied, first_time=first_time)
    applied.item_id, applied.created = item.pk, first_time
    return applied


def _persist(row: CatalogItem | Variant, fields: tuple[str, ...]) -> None:
    """Write without the model's save signal: that re-indexes one item per save, and a
    sync indexes in bulk itself (per page, per delivery) once the rows are written."""
    model = type(row)
    if row.pk is None:
        model.objects.bulk_create([row])
        return
    values: dict[str, Any] = {name: getattr(row, name) for name in fields}
    if isinstance(row, CatalogItem):
        values["updated_at"] = timezone.now()
    model.objects.filter(pk=row.pk).update(**values)


def _set(item: Any, name: str, value: Any, applied: Applied, label: str) -> None:
    before = getattr(item, name)
    if before != value:
        if item.pk is not None:
            applied.changes.append(f"{label} {name}: {before!s:.60} → {value!s:.60}")
        setattr(item, name, value)


def _fill_item(
    connection: StoreConnection,
    item: CatalogItem,
    product: UpstreamProduct,
    applied: Applied,
    *,
    first_time: bool,
) -> None:
    label = item.sku
    _set(item, "name", _text(product.title, 160) or item.sku, applied, label)
    _set(item, "description", _text(product.description, 4000), applied, label)
    _set(item, "brand", _text(product.vendor, 80), applied, label)
    _set(item, "image_url", _url(product.image_url), applied, label)
    _set(item, "link_url", _url(product.link_url), applied, label)
    _set(item, "is_active", product.active, applied, label)
    price = _shillings(connection, product.external_id, product.price)
    _set(item, "price", price, applied, label)
    if product.simple:
        only = product.variants[0]
        _set(item, "stock_tracked", only.tracked, applied, label)
        _set_stock(
            connection,
            item,
            _variant_stock(connection, only),
            applied,
            product.external_id,
            first_time=first_time,
        )


def _variant_stock(connection: StoreConnection, variant: UpstreamVariant) -> int:
    """The variant's stock: the sum of its locations when we know them, else its total."""
    for level in variant.levels:
        _store_level(connection, level)
    if variant.levels:
        return sum(level.available for level in variant.levels)
    return variant.stock


def _set_stock(
    connection: StoreConnection,
    row: CatalogItem | Variant,
    stock: int,
    applied: Applied,
    external_id: str,
    *,
    first_time: bool,
) -> None:
    if stock < 0:
        raise_conflict(
            connection,
            ConflictKind.NEGATIVE_STOCK,
            external_id,
            None,
            f"{stock} in stock upstream; 0 here",
        )
    stock = max(stock, 0)
    if connection.stock_owner == StockOwner.PLATFORM or first_time or row.pk is None:
        _set(row, "stock", stock, applied, row.sku)
    elif row.stock != stock:
        applied.kept.append(f"{row.sku} stock: ours {row.stock}, store {stock} (kept ours)")


def _apply_variants(
    connection: StoreConnection,
    mapping: ExternalProduct,
    item: CatalogItem,
    product: UpstreamProduct,
    applied: Applied,
    *,
    first_time: bool,
) -> None:
    links = ExternalVariant.objects.filter(product=mapping).select_related("variant")
    known = {v.external_id: v for v in links}
    seen = set()
    for upstream in product.variants:
        seen.add(upstream.external_id)
        link = known.get(upstream.external_id) or ExternalVariant(
            tenant_id=connection.tenant_id, product=mapping, external_id=upstream.external_id
        )
        state = (upstream.inventory_item_id, upstream.sku, link.variant_id)
        if not product.simple:
            link.variant = _apply_variant(connection, item, link, upstream, applied)
        if link.pk is None or (link.inventory_item_id, link.upstream_sku, link.variant_id) != state:
            link.inventory_item_id, link.upstream_sku = upstream.inventory_item_id, upstream.sku
            link.save()
    for gone in set(known) - seen:
        variant = known[gone].variant
        if variant is not None and variant.is_active:
            _set(variant, "is_active", False, applied, variant.sku)
            _persist(variant, ("is_active",))


def _apply_variant(
    connection: StoreConnection,
    item: CatalogItem,
    link: ExternalVariant,
    upstream: UpstreamVariant,
    applied: Applied,
) -> Variant:
    variant = link.variant or Variant(
        tenant_id=connection.tenant_id,
        item=item,
        sku=f"{connection.prefix}V{upstream.external_id}"[:64],
    )
    first_time = variant.pk is None
    changes_before = len(applied.changes)
    _set(variant, "attributes", upstream.attributes, applied, variant.sku)
    price = _shillings(connection, link.product.external_id, upstream.price)
    _set(variant, "price", None if price == item.price else price, applied, variant.sku)
    _set(variant, "is_active", True, applied, variant.sku)
    _set(variant, "stock_tracked", upstream.tracked, applied, variant.sku)
    stock = _variant_stock(connection, upstream)
    _set_stock(connection, variant, stock, applied, link.product.external_id, first_time=first_time)
    if first_time or len(applied.changes) > changes_before:
        _persist(variant, VARIANT_FIELDS)
    return variant


def _store_level(connection: StoreConnection, level: Level, *, now: bool = True) -> str:
    """Keep one location's level unless we hold a newer one: "kept", "stale", or "tie"
    (an event, `now` False, with the same second as a different level we hold)."""
    row = (
        StockLevel.objects.select_for_update()
        .filter(
            tenant_id=connection.tenant_id,
            connection=connection,
            inventory_item_id=level.inventory_item_id,
            location_id=level.location_id,
        )
        .first()
    )
    if row is not None and row.upstream_updated_at > level.updated_at:
        return "stale"
    if row is not None and row.upstream_updated_at == level.updated_at and not now:
        return "kept" if row.available == level.available else "tie"
    row = row or StockLevel(
        tenant_id=connection.tenant_id,
        connection=connection,
        inventory_item_id=level.inventory_item_id,
        location_id=level.location_id,
    )
    row.available, row.upstream_updated_at = level.available, level.updated_at
    row.save()
    return "kept"


def apply_level(connection: StoreConnection, level: Level, *, now: bool = False) -> Applied:
    """One location's stock changed: the variant's stock becomes the sum of its locations.
    `now`: the store's level as of now (a fetch after a tie), which wins a tie."""
    link = (
        ExternalVariant.objects.select_related("variant", "product__item")
        .filter(
            tenant_id=connection.tenant_id,
            inventory_item_id=level.inventory_item_id,
            product__connection=connection,
        )
        .first()
    )
    kept = _store_level(connection, level, now=now)
    if kept != "kept":
        item_id = link.product.item_id if link else None
        return Applied(item_id=item_id, stale=kept == "stale", tie=kept == "tie")
    if link is None or link.product.item is None:
        return Applied()  # an item we do not sell (yet): the level waits for its product
    total = (
        StockLevel.objects.filter(
            tenant_id=connection.tenant_id,
            connection=connection,
            inventory_item_id=level.inventory_item_id,
        ).aggregate(total=Sum("available"))["total"]
        or 0
    )
    row: CatalogItem | Variant = link.variant or link.product.item
    applied = Applied(item_id=link.product.item_id)
    _set_stock(connection, row, total, applied, link.product.external_id, first_time=False)
    _persist(row, ("stock",))
    return applied


def has_open_orders(item_id: int) -> list[str]:
    return sorted(
        set(
            OrderLine.objects.filter(item_id=item_id, order__status__in=OPEN_ORDER).values_list(
                "order__reference", flat=True
            )
        )
    )


def apply_delete(
    connection: StoreConnection, external_id: str, at: datetime, *, seen_missing: bool = False
) -> Applied:
    """The product is gone upstream. An item with open orders is only withdrawn from sale
    and queued for the admin; one with past orders is withdrawn; otherwise deleted.

    `seen_missing`: a reconcile walked the whole store and did not find it, which beats
    any timestamp (the store's clock and ours need not agree)."""
    mapping = _locked_mapping(connection, external_id)
    if mapping is None or (at < mapping.upstream_updated_at and not seen_missing):
        return Applied(stale=mapping is not None)
    mapping.deleted_upstream = True
    mapping.upstream_updated_at = max(at, mapping.upstream_updated_at)
    item, applied = mapping.item, Applied(item_id=mapping.item_id)
    if item is not None:
        open_orders = has_open_orders(item.pk)
        if open_orders:
            raise_conflict(
                connection,
                ConflictKind.DELETE_WITH_OPEN_ORDERS,
                external_id,
                item.pk,
                f"{item.name}: deleted in the store, open orders {', '.join(open_orders[:10])}",
            )
        if open_orders or OrderLine.objects.filter(item_id=item.pk).exists():
            _set(item, "is_active", False, applied, item.sku)
            _persist(item, ("is_active",))
        else:
            applied.changes.append(f"{item.sku} deleted")
            mapping.item = None
            mapping.save()
            item.delete()
            applied.item_id = None
            return applied
    mapping.save()
    return applied
