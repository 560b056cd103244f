"""What the agent inbox shows: counts, a version to poll, the thread and the customer.

Everything is read fresh from the rows that own it (orders and payments from commerce and
payments, not the context copied into the ticket when it opened), with the tenant
explicit. `version` is a handful of indexed max() reads, so a poll that finds nothing
new costs a few milliseconds and no rendering.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from uuid import UUID

from django.db.models import Count, F, Max, OuterRef, Q, Subquery

from payments.models import PaymentRequest
from tenants.context import tenant_context
from tenants.models import Customer
from tulia.commerce.models import Order
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.handoff.models import HandoffTicket, TicketEvent, TicketStatus
from tulia.handoff.names import staff_name

RECENT = 5
PENDING_INBOUND = (InboundMessage.Status.RECEIVED, InboundMessage.Status.PROCESSING)
THREAD_LENGTH = 60
_AGENT_MARKS = (TicketEvent.Kind.CLAIMED, TicketEvent.Kind.REPLY)


@dataclass(frozen=True)
class Counts:
    waiting: int  # open tickets nobody has claimed
    mine: int  # tickets assigned to this agent
    unread: int  # of mine, those where the customer wrote after the agent's last word


@dataclass(frozen=True)
class Bubble:
    side: str  # customer, bot, agent, note, event
    body: str
    at: datetime
    who: str = ""


@dataclass(frozen=True)
class OrderLine:
    reference: str
    status: str
    total: Decimal
    currency: str
    created_at: datetime


@dataclass(frozen=True)
class PaymentLine:
    method: str
    amount: Decimal
    currency: str
    status: str
    receipt: str
    order_reference: str
    updated_at: datetime


@dataclass(frozen=True)
class CustomerCard:
    name: str
    phone: str
    language: str
    consent: str
    orders: list[OrderLine]
    payments: list[PaymentLine]


def counts(tenant_id: UUID | str, user_id: int) -> Counts:
    last_word = (
        TicketEvent.objects.filter(ticket=OuterRef("pk"), kind__in=_AGENT_MARKS)
        .order_by("-created_at")
        .values("created_at")[:1]
    )
    with tenant_context(tenant_id) as tid:
        found = (
            HandoffTicket.objects.filter(tenant_id=tid, status__in=["open", "assigned"])
            .annotate(last_word=Subquery(last_word))
            .aggregate(
                waiting=Count("id", filter=Q(status=TicketStatus.OPEN)),
                mine=Count("id", filter=Q(assigned_to_id=user_id)),
                unread=Count(
                    "id",
                    filter=Q(
                        assigned_to_id=user_id,
                        conversation__last_inbound_at__gt=F("last_word"),
                    ),
                ),
            )
        )
    return Counts(waiting=found["waiting"], mine=found["mine"], unread=found["unread"])


def _customer_lines(tenant_id: UUID, conversation: Conversation) -> Q:
    """The conversation's inbound messages, including those the webhook has stored but
    no worker has attached yet: the agent sees a message as soon as Twilio delivered it,
    whatever the worker's backlog (the partial index inbound_pending_thread serves it)."""
    not_yet_attached = Q(
        conversation__isnull=True,
        sender_id=conversation.sender_id,
        from_e164=conversation.customer.phone_e164,
        status__in=PENDING_INBOUND,
    )
    attached = Q(conversation_id=conversation.pk)
    if conversation.status not in Conversation.OPEN_STATUSES:
        return Q(tenant_id=tenant_id) & attached  # new lines belong to the next conversation
    return Q(tenant_id=tenant_id) & (attached | not_yet_attached)


def _conversation(tenant_id: UUID, conversation_id: int) -> Conversation | None:
    return (
        Conversation.objects.filter(tenant_id=tenant_id, pk=conversation_id)
        .select_related("customer")
        .only("status", "sender_id", "customer_id", "customer__phone_e164")
        .first()
    )


def _conversation_parts(tenant_id: UUID, conversation_id: int) -> list[object]:
    """The thread, the conversation's status and the customer's orders and payments."""
    conversation = _conversation(tenant_id, conversation_id)
    if conversation is None:
        return [None]
    scope = {"tenant_id": tenant_id, "conversation_id": conversation_id}
    mine = {"tenant_id": tenant_id, "customer_id": conversation.customer_id}
    lines = InboundMessage.objects.filter(_customer_lines(tenant_id, conversation))
    return [
        conversation.status,
        lines.aggregate(m=Max("id"))["m"],
        OutboundMessage.objects.filter(**scope).aggregate(m=Max("id"))["m"],
        Order.objects.filter(**mine).aggregate(m=Max("updated_at"))["m"],
        PaymentRequest.objects.filter(**mine).aggregate(m=Max("updated_at"))["m"],
    ]


def version(
    tenant_id: UUID | str,
    user_id: int,
    conversation_id: int | None = None,
    *,
    known: Counts | None = None,
) -> str:
    """Changes whenever anything the inbox shows changes: tickets, counts, the thread,
    the customer's orders and payments. `known`: counts the caller has just read (the
    header badge shows them), so they are not counted twice per page."""
    with tenant_context(tenant_id) as tid:
        parts: list[object] = [
            TicketEvent.objects.filter(tenant_id=tid).aggregate(m=Max("id"))["m"],
            known if known is not None else counts(tid, user_id),
        ]
        if conversation_id is not None:
            parts += _conversation_parts(tid, conversation_id)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _agent_replies(tenant_id: UUID, conversation_id: int) -> dict[str, str]:
    """Who typed each agent reply, by its text (the event log records the author)."""
    replies = TicketEvent.objects.filter(
        tenant_id=tenant_id,
        ticket__conversation_id=conversation_id,
        kind=TicketEvent.Kind.REPLY,
    ).select_related("actor", "actor__tenant_membership")
    return {event.body.strip(): staff_name(event.actor) for event in replies}


def _outbound_bubble(message: OutboundMessage, authors: dict[str, str]) -> Bubble:
    # The event log knows what agents typed; the request-id prefix covers a reply whose
    # text was changed on the way (e.g. split into parts).
    by_agent = message.body.strip() in authors or message.request_id.startswith("desk-")
    side = "agent" if by_agent else "bot"
    who = authors.get(message.body.strip(), "agent") if by_agent else "bot"
    return Bubble(side=side, body=message.body, at=message.created_at, who=who)


def _event_bubble(event: TicketEvent) -> Bubble | None:
    if event.kind == TicketEvent.Kind.REPLY:
        return None  # the sent message itself is in the thread
    who = staff_name(event.actor)
    if event.kind == TicketEvent.Kind.NOTE:
        return Bubble(side="note", body=event.body, at=event.created_at, who=who)
    label = event.get_kind_display().replace("_", " ")
    return Bubble(side="event", body=f"{label} {('by ' + who) if who else ''}".strip(),
                  at=event.created_at, who=who)  # fmt: skip


def thread(tenant_id: UUID | str, conversation_id: int) -> list[Bubble]:
    """The conversation as the agent reads it: customer, bot and agent messages, internal
    notes and ticket events, oldest first, the last THREAD_LENGTH of them."""
    with tenant_context(tenant_id) as tid:
        scope = {"tenant_id": tid, "conversation_id": conversation_id}
        conversation = _conversation(tid, conversation_id)
        if conversation is None:
            return []
        inbound = InboundMessage.objects.filter(_customer_lines(tid, conversation)).order_by("-id")[
            :THREAD_LENGTH
        ]
        outbound = OutboundMessage.objects.filter(**scope).order_by("-id")[:THREAD_LENGTH]
        events = (
            TicketEvent.objects.filter(tenant_id=tid, ticket__conversation_id=conversation_id)
            .select_related("actor", "actor__tenant_membership")
            .order_by("-id")[:THREAD_LENGTH]
        )
        authors = _agent_replies(tid, conversation_id)
        bubbles = [
            Bubble(side="customer", body=m.body or f"[{m.kind}]", at=m.received_at) for m in inbound
        ]
        bubbles += [_outbound_bubble(m, authors) for m in outbound]
        bubbles += [b for e in events if (b := _event_bubble(e)) is not None]
    bubbles.sort(key=lambda bubble: bubble.at)
    return bubbles[-THREAD_LENGTH:]


def _consent(customer: Customer) -> str:
    if customer.consent_withdrawn_at is not None:
        return f"withdrawn {customer.consent_withdrawn_at:%d %b %Y}"
    granted = ["notifications"] if customer.notifications_opt_in else []
    granted += ["marketing"] if customer.marketing_opt_in else []
    return ", ".join(granted) + " allowed" if granted else "no messages allowed"


def customer_card(tenant_id: UUID | str, customer_id: int, language: str = "") -> CustomerCard:
    """The customer beside the thread, with their latest orders and payments as they are now."""
    with tenant_context(tenant_id) as tid:
        customer = Customer.objects.get(tenant_id=tid, pk=customer_id)
        orders = Order.objects.filter(tenant_id=tid, customer_id=customer_id).order_by(
            "-created_at"
        )[:RECENT]
        payments = (
            PaymentRequest.objects.filter(tenant_id=tid, customer_id=customer_id)
            .select_related("order")
            .order_by("-created_at")[:RECENT]
        )
        return CustomerCard(
            name=customer.display_name,
            phone=customer.phone_e164,
            language=customer.language_preference or language or "unknown",
            consent=_consent(customer),
            orders=[
                OrderLine(o.reference, o.get_status_display(), o.total, o.currency, o.created_at)
                for o in orders
            ],
            payments=[
                PaymentLine(
                    method=p.get_method_display(),
                    amount=p.paid_amount or p.amount,
                    currency=p.currency,
                    status=p.get_status_display(),
                    receipt=p.receipt,
                    order_reference=p.order.reference if p.order else "",
                    updated_at=p.updated_at,
                )
                for p in payments
            ],
        )


def conversation_page(conversation: Conversation) -> dict[str, object]:
    """What the conversation admin page shows instead of the engine's raw state."""
    tenant_id = conversation.tenant_id
    state = conversation.state or {}
    with tenant_context(tenant_id) as tid:
        tickets = list(
            HandoffTicket.objects.filter(tenant_id=tid, conversation_id=conversation.pk).order_by(
                "-opened_at"
            )
        )
    return {
        "bubbles": thread(tenant_id, conversation.pk),
        "card": customer_card(
            tenant_id, conversation.customer_id, str(state.get("response_language") or "")
        ),
        "info": {"journey": state.get("journey"), "step": state.get("step")},
        "tickets": tickets,
    }
