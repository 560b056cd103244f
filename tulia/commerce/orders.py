"""Order lookups and payment-side status changes; the payments app builds on these.

Staff and customer moves after payment live in tulia.commerce.lifecycle.

Every change locks the order row, checks the transition, and appends an
OrderStatusEvent in the same transaction.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from tenants.accessors import get_owned
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.errors import OrderStateError, PaymentConflict
from tulia.commerce.indexing import refresh_search_text
from tulia.commerce.models import CatalogItem, Order, OrderStatus, OrderStatusEvent, Variant

logger = logging.getLogger("tulia.commerce")

# One step at a time, so the customer hears of each; cancelling stops at "shipped"
# (goods on the road come back as a return, not a cancellation).
ALLOWED_TRANSITIONS: dict[str, frozenset[str]] = {
    OrderStatus.DRAFT: frozenset(
        {OrderStatus.PENDING_PAYMENT, OrderStatus.PAID, OrderStatus.CANCELLED}
    ),
    OrderStatus.PENDING_PAYMENT: frozenset({OrderStatus.PAID, OrderStatus.CANCELLED}),
    OrderStatus.PAID: frozenset({OrderStatus.CONFIRMED, OrderStatus.CANCELLED}),
    OrderStatus.CONFIRMED: frozenset({OrderStatus.PACKED, OrderStatus.CANCELLED}),
    OrderStatus.PACKED: frozenset({OrderStatus.SHIPPED, OrderStatus.CANCELLED}),
    OrderStatus.SHIPPED: frozenset({OrderStatus.DELIVERED}),
    OrderStatus.DELIVERED: frozenset(),
    OrderStatus.CANCELLED: frozenset(),
}
# Statuses in which the goods have left stock (payment took them).
STOCK_TAKEN = frozenset(
    {OrderStatus.PAID, OrderStatus.CONFIRMED, OrderStatus.PACKED, OrderStatus.SHIPPED,
     OrderStatus.DELIVERED}
)  # fmt: skip


def get_order(tenant_id: UUID | str, order_id: int) -> Order:
    """The tenant's order, or NotFound (also for another tenant's order)."""
    return get_owned(Order, tenant_id, order_id)


def get_order_by_reference(tenant_id: UUID | str, reference: str) -> Order:
    with tenant_context(tenant_id) as tid:
        order = Order.objects.filter(tenant_id=tid, reference=reference.strip().upper()).first()
    if order is None:
        raise NotFound("order not found")
    return order


def locked_order(tenant_id: UUID, order_id: int) -> Order:
    try:
        return Order.objects.select_for_update().get(tenant_id=tenant_id, pk=order_id)
    except (Order.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("order not found") from exc


def record_transition(
    order: Order,
    to_status: str,
    *,
    reason: str = "",
    payment_reference: str = "",
    actor: str = "",
    update_fields: tuple[str, ...] = (),
) -> None:
    """Move a locked order to `to_status` and append the history row."""
    if to_status not in ALLOWED_TRANSITIONS[order.status]:
        raise OrderStateError(f"order {order.reference} cannot go {order.status} -> {to_status}")
    OrderStatusEvent.objects.create(
        tenant_id=order.tenant_id,
        order=order,
        from_status=order.status,
        to_status=to_status,
        reason=reason[:200],
        payment_reference=payment_reference[:64],
        actor=actor[:80],
    )
    order.status = to_status
    fields = ["status", "payment_reference", "paid_at", "updated_at", *update_fields]
    order.save(update_fields=fields)


def mark_locked_order_payment_pending(order: Order) -> Order:
    """Draft -> pending_payment for an order the caller holds locked in its open
    transaction (a payment starting has just checked it is payable, so the row is not
    read twice); already pending is a no-op (safe to call twice)."""
    if order.status != OrderStatus.PENDING_PAYMENT:
        record_transition(order, OrderStatus.PENDING_PAYMENT, reason="payment started")
    return order


def mark_order_paid(tenant_id: UUID | str, order_id: int, *, payment_reference: str) -> Order:
    """Record the payment. The same reference twice changes nothing; a different
    reference on a paid order raises PaymentConflict so it is reviewed, not lost."""
    if not payment_reference:
        raise ValueError("payment_reference is required")
    with tenant_context(tenant_id) as tid:
        order = locked_order(tid, order_id)
        if order.status in STOCK_TAKEN:
            if order.payment_reference == payment_reference:
                return order
            logger.warning("second payment %s for order %s", payment_reference, order.reference)
            raise PaymentConflict(f"order {order.reference} is already paid")
        order.payment_reference = payment_reference[:64]
        order.paid_at = timezone.now()
        record_transition(
            order,
            OrderStatus.PAID,
            reason="payment confirmed",
            payment_reference=payment_reference,
            actor="payments",
        )
        _take_stock(order)
        return order


def _take_stock(order: Order) -> None:
    """Paid goods leave stock; never below zero (oversold orders are the shop's call)."""
    for line in order.lines.all():
        target = (
            Variant.objects.filter(pk=line.variant_id)
            if line.variant_id
            else CatalogItem.objects.filter(pk=line.item_id)
        )
        target.update(stock=Greatest(F("stock") - line.quantity, 0))
    refresh_search_text(order.tenant_id, [line.item_id for line in order.lines.all()])


def restock(order: Order) -> None:
    """A cancelled order's goods go back on the shelf (what payment took, line by line)."""
    for line in order.lines.all():
        target = (
            Variant.objects.filter(pk=line.variant_id)
            if line.variant_id
            else CatalogItem.objects.filter(pk=line.item_id)
        )
        target.update(stock=F("stock") + line.quantity)
    refresh_search_text(order.tenant_id, [line.item_id for line in order.lines.all()])


def order_history(tenant_id: UUID | str, order_id: int) -> list[OrderStatusEvent]:
    with tenant_context(tenant_id) as tid:
        return list(
            OrderStatusEvent.objects.filter(tenant_id=tid, order_id=order_id).order_by("id")
        )
