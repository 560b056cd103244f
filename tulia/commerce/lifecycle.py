"""The order after payment: confirmed, packed, shipped, delivered, or cancelled.

    paid ─> confirmed ─> packed ─> shipped ─> delivered
      │         │           │
      └─────────┴───────────┴─> cancelled   (staff, API or the customer, before shipping)

`move_order` is the one door for these moves (admin actions and the tenant API call
it): it locks the order row, refuses a move the table in tulia.commerce.orders does
not allow (OrderStateError, never a half-applied change), appends the event with who
and the note, applies the consequences, and tells the customer through the outbound
gate in the same transaction, so a refused or rolled-back move sends nothing.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.errors import OrderStateError
from tulia.commerce.models import Order, OrderStatus
from tulia.commerce.orders import (
    ALLOWED_TRANSITIONS,
    STOCK_TAKEN,
    locked_order,
    record_transition,
    restock,
)
from tulia.conversations.services import notice_language
from tulia.text import label as text_label
from tulia.whatsapp import purposes

logger = logging.getLogger("tulia.commerce")

# The statuses staff move orders to, in the order the buttons show them.
STAFF_MOVES = (
    OrderStatus.CONFIRMED,
    OrderStatus.PACKED,
    OrderStatus.SHIPPED,
    OrderStatus.DELIVERED,
    OrderStatus.CANCELLED,
)
# The gate's purpose per step; "packed" has no template, so outside the 24-hour
# window it is recorded as not sent (the next step's message carries the news).
PURPOSE_BY_STATUS: dict[str, str] = {
    OrderStatus.CONFIRMED: purposes.ORDER_CONFIRMED,
    OrderStatus.PACKED: "order_packed",
    OrderStatus.SHIPPED: purposes.ORDER_SHIPPED,
    OrderStatus.DELIVERED: purposes.ORDER_DELIVERED,
    OrderStatus.CANCELLED: purposes.ORDER_CANCELLED,
}


def move_order(
    tenant_id: UUID | str,
    order_id: int,
    to_status: str,
    *,
    actor: str,
    note: str = "",
    notify: bool = True,
) -> Order:
    """Move the order one step; OrderStateError if the step is not allowed from here.

    `notify=False` when the customer made the move in chat: the reply to their own
    message tells them, so no second notice goes out."""
    if to_status not in STAFF_MOVES:
        raise OrderStateError(f"'{to_status}' is not a status staff can move an order to")
    note = note.strip()[:200]
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        order = locked_order(tid, order_id)
        before = order.status
        if to_status not in ALLOWED_TRANSITIONS[before]:
            raise OrderStateError(f"order {order.reference} cannot go {before} -> {to_status}")
        changed = _consequences(order, before, to_status, note)
        record_transition(order, to_status, reason=note, actor=actor, update_fields=changed)
        if notify:
            _tell_customer(order, to_status, note)
        return order


def _consequences(order: Order, before: str, to_status: str, note: str) -> tuple[str, ...]:
    """Set the fields a step changes; the caller saves them with the status."""
    if to_status == OrderStatus.SHIPPED:
        order.tracking_note = note
        return ("tracking_note",)
    if to_status == OrderStatus.DELIVERED:
        order.delivered_at = timezone.now()
        return ("delivered_at",)
    if to_status == OrderStatus.CANCELLED and before in STOCK_TAKEN:
        restock(order)
        order.refund_due = order.paid_at is not None
        return ("refund_due",)
    return ()


def customer_text(
    order: Order, to_status: str, note: str, language: str, tone: str | None = None
) -> str:
    """The free-form update in the customer's language (en/sw/sheng catalog) and the
    shop's tone."""
    update = text_label("reply.order_update", to_status, language, tone=tone)
    parts = [update.format(reference=order.reference)]
    if note:
        label = "tracking" if to_status == OrderStatus.SHIPPED else "reason"
        parts.append(text_label("reply.order_update", label, language, tone=tone).format(note=note))
    if to_status == OrderStatus.CANCELLED and order.refund_due:
        parts.append(text_label("reply.order_update", "refund_due", language, tone=tone))
    return " ".join(parts)


def _facts(order: Order, to_status: str, note: str, language: str) -> dict[str, str]:
    # The templates' second variable must not be blank: the status word stands in.
    fallback = text_label("reply.status", to_status, language)
    return {"order": order.reference, "details": note or fallback, "reason": note or fallback}


def _tell_customer(order: Order, to_status: str, note: str) -> None:
    from tulia.whatsapp.outbound import send_to_customer  # whatsapp imports commerce

    language = notice_language(order.tenant_id, order.customer_id)
    body = customer_text(order, to_status, note, language, get_tenant(order.tenant_id).tone_style)
    try:
        send_to_customer(
            order.tenant_id,
            order.customer_id,
            [body],
            f"order-{order.pk}-{to_status}",
            purpose=PURPOSE_BY_STATUS[to_status],
            facts=_facts(order, to_status, note, language),
        )
    except NotFound:
        logger.warning("order %s: customer has no conversation to tell", order.reference)
