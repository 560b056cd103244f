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
from tulia.catalog_sync.connectors import fetch_product
from tulia.catalog_sync.errors import BadPayload
from tulia.catalog_sync.ingest import triggered_at
from tulia.catalog_sync.models import DeliveryStatus, StoreConnection, WebhookDelivery
from tulia.catalog_sync.shopify import payloads as shopify
from tulia.catalog_sync.upstream import UpstreamProduct
from tulia.catalog_sync.woocommerce import payloads as woo
from tulia.commerce.indexing import schedule_indexing

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
        return fetch_product(connection, str(body.parent_id))
    if body.variations:
        return fetch_product(connection, str(body.id))
    return woo.to_upstream(body, [])


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
    return _finish(tenant_id, delivery_id, step)


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
            delivery.status = DeliveryStatus.STALE if applied.stale else DeliveryStatus.APPLIED
            if applied.item_id and not applied.stale:
                schedule_indexing(tid, [applied.item_id])
        delivery.processed_at = timezone.now()
        delivery.save(update_fields=["status", "error", "processed_at"])
        return delivery.status
