"""What a conversation left behind in the database, read through the tenant's context."""

from __future__ import annotations

from typing import Any

from payments.models import PaymentRequest
from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer
from tests.flows.chat import Chat
from tulia.commerce.models import Order
from tulia.commerce.orders import mark_order_paid
from tulia.conversations.models import Conversation
from tulia.handoff.models import HandoffTicket


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
            "consent_events": ConsentEvent.objects.filter(
                tenant_id=tid, customer_id=customer.pk
            ).count(),
            "conversation_status": Conversation.objects.get(pk=chat.conversation_id).status,
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


ACTIONS = {"pay_open_order": pay_open_order}
