"""A customer's return or refund request: verdict, record, ticket — never a promise.

Same order + action gives back the same request and ticket (seed 001's idempotency key),
so a customer asking twice, or a retried turn, does not create a second case.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.models import Order
from tulia.conversations.models import Conversation
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category, TicketEvent
from tulia.normalise import printable
from tulia.returns import eligibility as el
from tulia.returns import facts
from tulia.returns.messages import verdict_message
from tulia.returns.models import ReturnPolicy, ReturnRequest


@dataclass(frozen=True)
class ReturnAsk:
    order_reference: str
    action: el.Action
    reason_text: str = ""
    skus: tuple[str, ...] = ()
    request_id: str = ""
    language: str | None = None  # of the message asking; the shop's default without it
    wanted: str = ""  # an exchange: what the customer wants instead ("size 43")


@dataclass(frozen=True)
class ReturnOutcome:
    return_request_id: int
    created: bool
    verdict: dict[str, object]
    ticket_id: int | None
    message: str


def request_return(
    tenant_id: UUID | str, conversation_id: int, ask: ReturnAsk, now: datetime | None = None
) -> ReturnOutcome:
    tenant = get_tenant(tenant_id)
    moment = now or timezone.now()
    language = ask.language or tenant.default_language
    with tenant_context(tenant.id) as tid:
        conversation = (
            Conversation.objects.select_related("customer")
            .filter(tenant_id=tid, pk=conversation_id)
            .first()
        )
        if conversation is None:
            raise NotFound("conversation not found")
        order = Order.objects.filter(
            tenant_id=tid, customer_id=conversation.customer_id, reference=ask.order_reference
        ).first()
        if order is None:
            raise NotFound("order not found")  # another customer's order looks absent too
        existing = ReturnRequest.objects.filter(tenant_id=tid, order=order, action=ask.action)
        if (found := existing.first()) is not None:
            return _outcome(found, created=False, language=language)
        verdict = _decide(tid, conversation, order, ask, tz=tenant.timezone, moment=moment)
        record = _record(tid, conversation, order, ask, verdict)
        if record is None:  # lost a race with the same request: the winner's row stands
            return _outcome(existing.get(), created=False, language=language)
        record.ticket_id = _open_ticket(
            tid, conversation, order, ask, verdict=verdict, moment=moment
        )
        record.save(update_fields=["ticket"])
        return _outcome(record, created=True, language=language)


def _decide(
    tenant_id: UUID,
    conversation: Conversation,
    order: Order,
    ask: ReturnAsk,
    *,
    tz: str,
    moment: datetime,
) -> el.Verdict:
    stored = ReturnPolicy.objects.filter(tenant_id=tenant_id).first()
    request = el.Request(
        action=ask.action,
        items=facts.order_items(order, stored, list(ask.skus)),
        reason_text=ask.reason_text,
        delivered_at=facts.delivered_at(order),
        now=moment,
        fraud_flag=facts.is_flagged(conversation.customer),
        returns_last_30d=facts.recent_returns(
            tenant_id, conversation.customer_id, order.pk, moment
        ),
    )
    return el.check_eligibility(facts.policy_for(tenant_id, tz), request)


def _record(
    tenant_id: UUID, conversation: Conversation, order: Order, ask: ReturnAsk, verdict: el.Verdict
) -> ReturnRequest | None:
    try:
        with transaction.atomic():
            return ReturnRequest.objects.create(
                tenant_id=tenant_id,
                order=order,
                customer_id=conversation.customer_id,
                action=ask.action,
                skus=list(verdict.skus),
                reason_text=printable(ask.reason_text)[:1000],
                wanted=printable(ask.wanted)[:120],
                verdict=verdict.as_dict(),
                request_id=ask.request_id[:64],
            )
    except IntegrityError:
        return None


def _open_ticket(
    tenant_id: UUID,
    conversation: Conversation,
    order: Order,
    ask: ReturnAsk,
    *,
    verdict: el.Verdict,
    moment: datetime,
) -> int | None:
    case = {"order": order.reference, "action": ask.action.value, "verdict": verdict.as_dict()}
    if ask.wanted:
        case["wanted"] = ask.wanted
    result = escalate(
        tenant_id,
        conversation.pk,
        HandoffRequest(
            reason=f"{ask.action.value} request for order {order.reference}: {verdict.reason}",
            category=Category.REFUND if ask.action is el.Action.REFUND else Category.RETURN,
            journey="orders",
            step=f"{ask.action.value}_request",
            request_id=ask.request_id,
            language=ask.language,
            extra={"return_request": case},
        ),
        now=moment,
    )
    if result.ticket_id is not None and not result.created:
        # The conversation already had a ticket: put this case on it for the agent.
        TicketEvent.objects.create(
            tenant_id=tenant_id,
            ticket_id=result.ticket_id,
            kind=TicketEvent.Kind.NOTE,
            body=f"Return/refund case added: {case}",
        )
    return result.ticket_id


def _outcome(record: ReturnRequest, *, created: bool, language: str) -> ReturnOutcome:
    return ReturnOutcome(
        return_request_id=record.pk,
        created=created,
        verdict=record.verdict,
        ticket_id=record.ticket_id,
        message=verdict_message(
            record.verdict,
            language=language,
            ticket_id=record.ticket_id,
            wanted=record.wanted,
            tone=get_tenant(record.tenant_id).tone_style,
        ),
    )
