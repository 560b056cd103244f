"""Handing a conversation to a person: one ticket per open conversation, then the desk.

The conversation row is locked first, so two escalations of the same conversation at
once (a keyword and a tool error in one turn) serialise and the second finds the first's
ticket; the partial unique constraint backs this up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model

from tenants.accessors import get_tenant, tenant_scope
from tenants.errors import NotFound
from tenants.models import Tenant
from tulia import clock
from tulia.conversations.models import Conversation
from tulia.handoff import desk_state, hours
from tulia.handoff.errors import IllegalTransition
from tulia.handoff.lifecycle import Move, transition
from tulia.handoff.messages import customer_message
from tulia.handoff.models import (
    OPEN_TICKET_STATUSES,
    Category,
    HandoffTicket,
    Priority,
    TicketEvent,
    TicketStatus,
)
from tulia.handoff.names import public_name
from tulia.handoff.policy import Assignment, Outcome, Presence, decide, estimated_wait
from tulia.handoff.ticket_context import build_context

_URGENT_CATEGORIES = {Category.PAYMENT_DISPUTE, Category.REFUND, Category.SENSITIVE}


@dataclass(frozen=True)
class HandoffRequest:
    reason: str
    category: Category
    priority: Priority | None = None
    journey: str | None = None
    step: str | None = None
    summary: str | None = None
    request_id: str = ""
    language: str | None = None
    """The language of the turn being answered; the stored state still has last turn's."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandoffResult:
    ticket_id: int | None
    created: bool
    outcome: Outcome
    queue_position: int | None
    estimated_wait_minutes: int | None
    agent_id: int | None
    message: str


def escalate(
    tenant_id: UUID | str,
    conversation_id: int,
    request: HandoffRequest,
    now: datetime | None = None,
) -> HandoffResult:
    """Open (or find) the conversation's ticket and route it; tell the customer honestly."""
    tenant = get_tenant(tenant_id)
    moment = now or datetime.fromtimestamp(clock.now(), UTC)  # business hours: a test holds it
    # Refusals (not found, not open) come before the first write: the tool's open
    # context is joined without a savepoint.
    with tenant_scope(tenant.id) as tid:
        conversation = _locked(tid, conversation_id)
        language = request.language or _language(tenant, conversation)
        existing = _open_ticket(tid, conversation_id)
        if existing is not None:
            _raise_priority(existing, _priority_of(request))
            return _result_for_existing(tenant, existing, conversation, moment, language)
        snap = desk_state.snapshot(tenant, conversation_id, conversation.customer_id, moment)
        assignment = decide(snap)
        if not assignment.staffed and not tenant.handoff_settings.open_ticket_after_hours:
            return _result(
                tenant, None, created=False, assignment=assignment, moment=moment, language=language
            )
        ticket = _create(tid, conversation, request, assignment, moment)
        _route(tid, conversation, ticket, assignment, moment)
        return _result(
            tenant, ticket, created=True, assignment=assignment, moment=moment, language=language
        )


def _locked(tenant_id: UUID, conversation_id: int) -> Conversation:
    conversation = (
        Conversation.objects.select_for_update()
        .filter(tenant_id=tenant_id, pk=conversation_id)
        .first()
    )
    if conversation is None:
        raise NotFound("conversation not found")
    if conversation.status not in Conversation.OPEN_STATUSES:
        raise IllegalTransition(f"the conversation is {conversation.status}; nothing to hand over")
    return conversation


def _priority_of(request: HandoffRequest) -> Priority:
    if request.priority is not None:
        return request.priority
    return Priority.HIGH if request.category in _URGENT_CATEGORIES else Priority.NORMAL


def _raise_priority(ticket: HandoffTicket, wanted: Priority) -> None:
    """A later, more serious reason (a payment dispute after "agent") moves it up."""
    order = list(Priority)
    if order.index(wanted) > order.index(Priority(ticket.priority)):
        HandoffTicket.objects.filter(pk=ticket.pk).update(priority=wanted)
        ticket.priority = wanted


def _open_ticket(tenant_id: UUID, conversation_id: int) -> HandoffTicket | None:
    return HandoffTicket.objects.filter(
        tenant_id=tenant_id, conversation_id=conversation_id, status__in=OPEN_TICKET_STATUSES
    ).first()


def _create(
    tenant_id: UUID,
    conversation: Conversation,
    request: HandoffRequest,
    assignment: Assignment,
    moment: datetime,
) -> HandoffTicket:
    context = build_context(
        conversation,
        reason=request.reason,
        category=request.category,
        journey=request.journey,
        step=request.step,
        summary=request.summary,
        extra=request.extra,
    )
    ticket = HandoffTicket.objects.create(
        tenant_id=tenant_id,
        conversation=conversation,
        customer_id=conversation.customer_id,
        category=request.category,
        priority=_priority_of(request),
        reason=context.reason[:300],
        outcome=assignment.outcome.value,
        context=context.model_dump(mode="json"),
        request_id=request.request_id[:64],
    )
    TicketEvent.objects.create(
        tenant_id=tenant_id, ticket=ticket, kind=TicketEvent.Kind.OPENED, body=ticket.reason
    )
    return ticket


def _route(
    tenant_id: UUID,
    conversation: Conversation,
    ticket: HandoffTicket,
    assignment: Assignment,
    moment: datetime,
) -> None:
    """Reconnect goes straight to the agent; anything else waits, bot stepped back.

    A ticket kept for after hours (or for when an agent comes online) waits too: the
    customer was told a person will answer, so the bot stops answering in their place.
    """
    if conversation.status != Conversation.Status.AI_ACTIVE:
        return  # already paused by someone else; the ticket just joins it
    if assignment.outcome is Outcome.RECONNECTED:
        transition(tenant_id, conversation.pk, Move.CLAIM)
        HandoffTicket.objects.filter(pk=ticket.pk).update(
            status=TicketStatus.ASSIGNED, assigned_to_id=assignment.agent_id, assigned_at=moment
        )
    else:
        transition(tenant_id, conversation.pk, Move.ESCALATE)


def _result_for_existing(
    tenant: Tenant,
    ticket: HandoffTicket,
    conversation: Conversation,
    moment: datetime,
    language: str,
) -> HandoffResult:
    if ticket.status == TicketStatus.ASSIGNED:
        assignment = Assignment(Outcome.RECONNECTED, agent_id=ticket.assigned_to_id)
    elif ticket.outcome == Outcome.QUEUED:
        ahead = HandoffTicket.objects.filter(
            tenant_id=tenant.id, status=TicketStatus.OPEN, opened_at__lt=ticket.opened_at
        ).count()
        snap = desk_state.snapshot(tenant, conversation.pk, conversation.customer_id, moment)
        online = sum(1 for a in snap.agents if a.presence is Presence.ONLINE)
        assignment = Assignment(
            Outcome.QUEUED,
            queue_position=ahead + 1,
            estimated_wait_minutes=estimated_wait(ahead + 1, online),
        )
    else:
        assignment = Assignment(Outcome(ticket.outcome))
    return _result(
        tenant, ticket, created=False, assignment=assignment, moment=moment, language=language
    )


def _result(
    tenant: Tenant,
    ticket: HandoffTicket | None,
    *,
    created: bool,
    assignment: Assignment,
    moment: datetime,
    language: str,
) -> HandoffResult:
    settings = tenant.handoff_settings
    agent_name = ""
    if assignment.agent_id is not None:
        users = get_user_model().objects.select_related("tenant_membership")
        agent_name = public_name(users.filter(pk=assignment.agent_id).first())
    message = customer_message(
        assignment,
        language=language,
        ticket_opened=ticket is not None,
        agent_name=agent_name,
        next_opening=hours.next_opening(settings.business_hours, tenant.timezone, moment),
    )
    return HandoffResult(
        ticket_id=ticket.pk if ticket else None,
        created=created,
        outcome=assignment.outcome,
        queue_position=assignment.queue_position,
        estimated_wait_minutes=assignment.estimated_wait_minutes,
        agent_id=assignment.agent_id,
        message=message,
    )


def _language(tenant: Tenant, conversation: Conversation) -> str:
    state = conversation.state or {}
    return str(state.get("response_language") or tenant.default_language)
