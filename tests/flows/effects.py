"""What a conversation left behind in the database, read through the tenant's context."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.utils import timezone

from payments.inbox import store_event
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, Refund
from payments.mpesa.handlers import handle_stk_callback
from payments.notify import send_outcome_once
from payments.refunds import request_refund
from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer
from tests.flows.chat import Chat
from tests.payments.conftest import mpesa_fixture
from tulia.campaigns.models import StockRequest
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import CatalogItem, Order
from tulia.commerce.orders import mark_order_paid
from tulia.conversations.models import Conversation
from tulia.handoff.models import HandoffTicket
from tulia.returns.models import ReturnRequest


def observed(chat: Chat) -> dict[str, Any]:
    with tenant_context(chat.tenant.id) as tid:
        customer = Customer.objects.get(tenant_id=tid, pk=chat.customer.pk)
        payments = PaymentRequest.objects.filter(tenant_id=tid, customer_id=customer.pk)
        tickets = HandoffTicket.objects.filter(tenant_id=tid, conversation_id=chat.conversation_id)
        return {
            "orders": Order.objects.filter(tenant_id=tid, customer_id=customer.pk).count(),
            "payments": payments.count(),
            "payment_amounts": sorted(int(p.amount) for p in payments),
            "payment_methods": sorted(p.method for p in payments),
            "tickets": tickets.count(),
            "ticket_categories": sorted(t.category for t in tickets),
            "marketing_opt_in": customer.marketing_opt_in,
            "notifications_opt_in": customer.notifications_opt_in,
            "language_preference": customer.language_preference or None,
            "stock_requests": sorted(
                StockRequest.objects.filter(tenant_id=tid, customer_id=customer.pk).values_list(
                    "item__name", flat=True
                )
            ),
            "consent_events": ConsentEvent.objects.filter(
                tenant_id=tid, customer_id=customer.pk
            ).count(),
            "conversation_status": Conversation.objects.get(pk=chat.conversation_id).status,
            "order_statuses": sorted(
                Order.objects.filter(tenant_id=tid, customer_id=customer.pk).values_list(
                    "status", flat=True
                )
            ),
            "fulfilments": sorted(
                f"{o.fulfilment}:{o.delivery_area}:{int(o.delivery_fee)}"
                for o in Order.objects.filter(tenant_id=tid, customer_id=customer.pk)
            ),
            "refunds": sorted(
                f"{r.method}:{r.status}:{int(r.amount)}"
                for r in Refund.objects.filter(tenant_id=tid, order__customer_id=customer.pk)
            ),
            "refunds_due": Order.objects.filter(
                tenant_id=tid, customer_id=customer.pk, refund_due=True
            ).count(),
            "return_verdicts": sorted(
                f"{r.action}:{r.verdict.get('reason')}"
                for r in ReturnRequest.objects.filter(tenant_id=tid, customer_id=customer.pk)
            ),
        }


def ticket_context(chat: Chat) -> dict[str, Any]:
    with tenant_context(chat.tenant.id) as tid:
        ticket = HandoffTicket.objects.filter(
            tenant_id=tid, conversation_id=chat.conversation_id
        ).get()
        return {"customer_id": ticket.customer_id, "tenant_id": ticket.tenant_id, **ticket.context}


def pay_open_order(chat: Chat) -> None:
    """What the payment callback does once M-Pesa confirms (payments' domain function)."""
    mark_order_paid(chat.tenant.id, int(chat.state["order_id"]), payment_reference="SIM123TEST")


def _paid_order(chat: Chat) -> Order:
    """A paid order of the shop's first item without sizes, for this customer."""
    with tenant_context(chat.tenant.id) as tid:
        items = CatalogItem.objects.filter(tenant_id=tid, variants__isnull=True, stock__gt=0)
        item = items.order_by("id").first()
        assert item is not None, "the shop fixture stocks an item without sizes"
    order = create_order(chat.tenant.id, chat.customer.pk, [LineRequest(item.pk, 1)])
    return mark_order_paid(chat.tenant.id, order.pk, payment_reference=f"SIM{order.pk}PAID")


def move_new_order(chat: Chat, steps: tuple[str, ...], days_ago: int = 0) -> None:
    """Staff move a freshly paid order through `steps`; delivery dated `days_ago`."""
    order = _paid_order(chat)
    for step in steps:
        move_order(chat.tenant.id, order.pk, step, actor="staff:test")
    if days_ago:
        with tenant_context(chat.tenant.id) as tid:
            Order.objects.filter(tenant_id=tid, pk=order.pk).update(
                delivered_at=timezone.now() - timedelta(days=days_ago)
            )


DELIVERY = ("confirmed", "packed", "shipped", "delivered")


def refund_cancelled(chat: Chat) -> None:
    """What staff's "Refund cancelled paid orders" does for this customer's orders."""
    with tenant_context(chat.tenant.id) as tid:
        owed = list(
            Order.objects.filter(
                tenant_id=tid, customer_id=chat.customer.pk, refund_due=True
            ).values_list("pk", flat=True)
        )
    for order_id in owed:
        request_refund(chat.tenant.id, order_id, None, key=f"cancel:{order_id}", actor="staff:t")


def _open_push(chat: Chat) -> PaymentRequest:
    with tenant_context(chat.tenant.id) as tid:
        return PaymentRequest.objects.filter(
            tenant_id=tid, order_id=int(chat.state["order_id"]), method=PaymentMethod.MPESA_STK
        ).latest("id")


def stk_callback(chat: Chat, fixture: str) -> str:
    """Daraja's callback for the open order's STK push, stored raw and processed the
    way the Celery task does (payments' own inbox and handler), e.g. 1032 cancelled."""
    checkout_id = _open_push(chat).provider_reference
    raw = mpesa_fixture(fixture, checkout_id)
    kind = PaymentEvent.Kind.STK_CALLBACK
    event = store_event(chat.tenant.id, kind, raw, reference=checkout_id)
    result = handle_stk_callback(chat.tenant.id, event.pk)
    assert result == PaymentEvent.Outcome.APPLIED, f"{fixture}: {result}"
    return result


def notify_payment(chat: Chat) -> None:
    """What payments' notify task does once a callback's transaction commits (tests run
    inside one transaction, so on_commit never fires): tell the customer the outcome."""
    payment = _open_push(chat)
    assert send_outcome_once(chat.tenant.id, payment.pk), "nothing new to tell"


ACTIONS: dict[str, Callable[[Chat], object]] = {
    "notify_payment": notify_payment,
    "pay_open_order": pay_open_order,
    "paid_order": lambda chat: move_new_order(chat, ()),
    "refund_cancelled": refund_cancelled,
    "confirmed_order": lambda chat: move_new_order(chat, ("confirmed",)),
    "shipped_order": lambda chat: move_new_order(chat, DELIVERY[:3]),
    "delivered_order": lambda chat: move_new_order(chat, DELIVERY, days_ago=2),
    "delivered_order_long_ago": lambda chat: move_new_order(chat, DELIVERY, days_ago=45),
    "stk_failed": lambda chat: stk_callback(chat, "stk_callback_insufficient_funds_1.json"),
    "stk_cancelled": lambda chat: stk_callback(chat, "stk_callback_cancelled_1032.json"),
    "stk_timeout": lambda chat: stk_callback(chat, "stk_callback_timeout_1037.json"),
}
