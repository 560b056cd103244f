"""Paid WhatsApp orders of synced goods are created in the store, exactly once.

When the platform owns stock, the store must hear of every sale: the order created there
takes the goods from the store's stock, and ours follows the store's numbers back (an
absolute level, so nothing is taken twice). One `UpstreamOrder` row per order and store
makes it once: its `key` goes with the order, a worker holds a short lease while sending,
and an attempt whose answer was lost is looked up by that key before anything is sent
again. A store that refuses the order (a variant deleted there) queues a conflict.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from tenants.context import tenant_context
from tulia.catalog_sync.apply import raise_conflict
from tulia.catalog_sync.connectors import client_for
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import (
    ConflictKind,
    ExternalVariant,
    StockOwner,
    StoreConnection,
    UpstreamOrder,
)
from tulia.catalog_sync.shopify.client import ShopifyClient
from tulia.catalog_sync.upstream import PaidOrder, PushLine
from tulia.catalog_sync.woocommerce.client import WooClient
from tulia.commerce.models import Order, OrderLine

LEASE = timedelta(minutes=2)


def pushes_orders(tenant_id: UUID | str) -> bool:
    """Does this shop have a store that owns stock (so paid orders must go there)?"""
    with tenant_context(tenant_id) as tid:
        return StoreConnection.objects.filter(
            tenant_id=tid, is_active=True, stock_owner=StockOwner.PLATFORM
        ).exists()


def push_paid_order(tenant_id: UUID | str, order_id: int) -> list[str]:
    """Create the paid order in each store its synced lines came from; their order ids."""
    with tenant_context(tenant_id) as tid:
        order = Order.objects.get(tenant_id=tid, pk=order_id)
        by_store = _lines_by_store(tid, order)
    paid = [(c, PaidOrder(_key(order), order.reference, tuple(ls))) for c, ls in by_store.items()]
    return [_push(tenant_id, connection, order.pk, sale) for connection, sale in paid]


def _key(order: Order) -> str:
    return f"tulia-{order.reference}-{order.pk}".lower()


def _lines_by_store(tid: UUID, order: Order) -> dict[StoreConnection, list[PushLine]]:
    found: dict[StoreConnection, list[PushLine]] = defaultdict(list)
    for line in OrderLine.objects.filter(tenant_id=tid, order=order):
        link = _link_of(tid, line)
        connection = link.product.connection if link else None
        if link is None or connection is None or not _owns_stock(connection):
            continue  # our own goods, or a store whose stock we own: nothing to tell
        simple = link.variant_id is None
        found[connection].append(
            PushLine(
                product_id=link.product.external_id,
                variant_id=""
                if simple and connection.platform == "woocommerce"
                else link.external_id,
                quantity=line.quantity,
                unit_price=line.unit_price,
            )
        )
    return found


def _owns_stock(connection: StoreConnection) -> bool:
    return connection.is_active and connection.stock_owner == StockOwner.PLATFORM


def _link_of(tid: UUID, line: OrderLine) -> ExternalVariant | None:
    links = ExternalVariant.objects.select_related("product__connection").filter(
        tenant_id=tid, product__deleted_upstream=False
    )
    if line.variant_id:
        return links.filter(variant_id=line.variant_id).first()
    # A simple product: its one upstream variant, with no variant row of ours.
    return links.filter(product__item_id=line.item_id, variant__isnull=True).first()


def _push(
    tenant_id: UUID | str, connection: StoreConnection, order_id: int, order: PaidOrder
) -> str:
    row = _claim(tenant_id, connection, order_id, order.key)
    if row.upstream_id:
        return row.upstream_id
    client = client_for(connection)
    try:
        upstream_id = _find(client, order, row) if row.attempts > 1 else ""
        upstream_id = upstream_id or client.create_order(order)
    except SyncError as exc:
        _release(tenant_id, row.pk, "", str(exc))
        if not exc.retryable:
            with tenant_context(tenant_id):
                raise_conflict(
                    connection,
                    ConflictKind.ORDER_NOT_PUSHED,
                    order.reference,
                    None,
                    f"order {order.reference} not created in the store: {exc}",
                )
        raise
    _release(tenant_id, row.pk, upstream_id, "")
    return upstream_id


def _find(client: ShopifyClient | WooClient, order: PaidOrder, row: UpstreamOrder) -> str:
    if isinstance(client, ShopifyClient):
        return client.find_order(order)
    # The store's clock need not agree with ours: look a little before our first attempt.
    return client.find_order(order, row.created_at - timedelta(minutes=5))


def _claim(
    tenant_id: UUID | str, connection: StoreConnection, order_id: int, key: str
) -> UpstreamOrder:
    """The order's row, leased to this worker and its attempt counted (committed before
    anything is sent, so a crash mid-send leaves the trace that makes the next one look)."""
    now = timezone.now()
    with tenant_context(tenant_id) as tid, transaction.atomic():
        row, _ = UpstreamOrder.objects.get_or_create(
            tenant_id=tid,
            connection=connection,
            order_id=order_id,
            defaults={"key": key},
        )
        row = UpstreamOrder.objects.select_for_update().get(pk=row.pk)
        if row.upstream_id:
            return row
        if row.claimed_until and row.claimed_until > now:
            raise SyncError("busy", "another worker is sending this order", retryable=True)
        row.attempts += 1
        row.claimed_until = now + LEASE
        row.save(update_fields=["attempts", "claimed_until"])
        return row


def _release(tenant_id: UUID | str, row_id: int, upstream_id: str, error: str) -> None:
    with tenant_context(tenant_id) as tid:
        UpstreamOrder.objects.filter(tenant_id=tid, pk=row_id).update(
            upstream_id=upstream_id,
            claimed_until=None,
            last_error=error[:400],
            pushed_at=timezone.now() if upstream_id else None,
        )
