"""Processing a stored delivery: parse strictly, dispatch by topic, mark it, index the item.

Safe to run twice: the delivery row is locked and only a `received` one is processed.
A body that does not fit the platform's shape is marked failed and kept for review.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from tenants.context import tenant_context
from tulia.catalog_sync import apply
from tulia.catalog_sync.apply import Applied
from tulia.catalog_sync.connectors import fetch_levels, fetch_product
from tulia.catalog_sync.errors import BadPayload, SyncError
from tulia.catalog_sync.indexing import reindex
from tulia.catalog_sync.ingest import triggered_at
from tulia.catalog_sync.models import DeliveryStatus, StoreConnection, WebhookDelivery
from tulia.catalog_sync.shopify import payloads as shopify
from tulia.catalog_sync.upstream import Level, UpstreamProduct
from tulia.catalog_sync.woocommerce import payloads as woo

TIE = "tie"
# Work that may call the store (a WooCommerce product's variations) is prepared before
# the transaction; the returned step runs inside it, under the locks.
Step = Callable[[StoreConnection], Applied]


def _shopify_step(delivery: WebhookDelivery, connection: StoreConnection) -> Step | None:
    raw = delivery.raw_body.encode()
    if delivery.topic in ("products/create", "products/update"):
        product = shopify.product(raw)
        return lambda conn: apply.apply_product(conn, product)
    if delivery.topic == "products/delete":
        external_id, at = shopify.deleted_id(raw), triggered_at(delivery)
        return lambda conn: apply.apply_delete(conn, external_id, at)
    if delivery.topic == "inventory_levels/update":
        level = shopify.inventory_level(raw)
        return lambda conn: apply.apply_level(conn, level)
    return None


def _woo_product(connection: StoreConnection, body: woo.WooProduct) -> UpstreamProduct:
    if body.type == "variation" and body.parent_id:
        return _fetched(connection, str(body.parent_id))
    if body.variations:
        return _fetched(connection, str(body.id))
    return woo.to_upstream(body, [])


def _fetched(connection: StoreConnection, external_id: str) -> UpstreamProduct:
    product = fetch_product(connection, external_id)
    if product is None:
        raise SyncError("gone", f"product {external_id} is gone from the store", retryable=False)
    return product


def _product_id(delivery: WebhookDelivery) -> str:
    raw = delivery.raw_body.encode()
    if delivery.connection.platform == "shopify":
        return shopify.product(raw).external_id
    body = woo.parse_raw(raw)
    return str(body.parent_id if body.type == "variation" and body.parent_id else body.id)


def _store_now_step(delivery: WebhookDelivery, connection: StoreConnection) -> Step:
    """After a tie: the store's present state, which no event of that second can beat."""
    if delivery.topic == "inventory_levels/update":
        item = shopify.inventory_level(delivery.raw_body.encode()).inventory_item_id
        levels = fetch_levels(connection, item)
        return lambda conn: _apply_levels(conn, levels)
    product = fetch_product(connection, _product_id(delivery))
    if product is None:
        return lambda conn: Applied(stale=True)  # deleted meanwhile: its own event follows
    return lambda conn: apply.apply_product(conn, product, exists_now=True)


def _apply_levels(connection: StoreConnection, levels: tuple[Level, ...]) -> Applied:
    applied = Applied(stale=True)
    for level in levels:
        applied = apply.apply_level(connection, level, now=True)
    return applied


def _woo_step(delivery: WebhookDelivery, connection: StoreConnection) -> Step | None:
    raw = delivery.raw_body.encode()
    if delivery.topic == "product.deleted":
        external_id = woo.deleted_id(raw)
        at = delivery.received_at
        return lambda conn: apply.apply_delete(conn, external_id, at)
    if delivery.topic in ("product.created", "product.updated", "product.restored"):
        product = _woo_product(connection, woo.parse_raw(raw))
        restored = delivery.topic == "product.restored"
        return lambda conn: apply.apply_product(conn, product, exists_now=restored)
    return None


def process_delivery(tenant_id: UUID | str, delivery_id: int) -> str:
    """Apply one stored delivery; returns its final status."""
    with tenant_context(tenant_id) as tid:
        delivery = WebhookDelivery.objects.select_related("connection").get(
            tenant_id=tid, pk=delivery_id
        )
    if delivery.status != DeliveryStatus.RECEIVED:
        return delivery.status
    connection = delivery.connection
    chooser = _shopify_step if connection.platform == "shopify" else _woo_step
    try:
        step = chooser(delivery, connection)
    except BadPayload as exc:
        return _finish(tenant_id, delivery_id, None, error=str(exc))
    status = _finish(tenant_id, delivery_id, step)
    if status != TIE:
        return status
    return _finish(tenant_id, delivery_id, _store_now_step(delivery, connection))


def _finish(tenant_id: UUID | str, delivery_id: int, step: Step | None, *, error: str = "") -> str:
    with tenant_context(tenant_id) as tid, transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("connection")
            .get(tenant_id=tid, pk=delivery_id)
        )
        if delivery.status != DeliveryStatus.RECEIVED:
            return delivery.status  # another worker got here first
        if error:
            delivery.status, delivery.error = DeliveryStatus.FAILED, error[:400]
        elif step is None:
            delivery.status = DeliveryStatus.IGNORED
        else:
            applied = step(delivery.connection)
            if applied.tie:
                return TIE  # nothing applied, the delivery still waiting: ask the store
            delivery.status = DeliveryStatus.STALE if applied.stale else DeliveryStatus.APPLIED
            if applied.item_id and not applied.stale:
                reindex(tid, [applied.item_id])
        delivery.processed_at = timezone.now()
        delivery.save(update_fields=["status", "error", "processed_at"])
        return delivery.status
