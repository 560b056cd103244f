"""Named readers for the desk (STYLE 1): the tenant is explicit; not-yours is NotFound."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.utils import timezone

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.conversations.models import Conversation
from tulia.handoff.models import (
    OPEN_TICKET_STATUSES,
    AgentPresence,
    CannedReply,
    HandoffTicket,
    TicketEvent,
    TicketStatus,
)
from tulia.handoff.ticket_context import MessageLine, last_messages


@dataclass(frozen=True)
class QueueEntry:
    ticket: HandoffTicket
    position: int | None  # only tickets still waiting for someone have a position
    waiting_seconds: int


def queue(tenant_id: UUID | str, now: datetime | None = None) -> list[QueueEntry]:
    """Open and assigned tickets, oldest first; waiting ones numbered in queue order."""
    moment = now or timezone.now()
    with tenant_context(tenant_id) as tid:
        tickets = list(
            HandoffTicket.objects.filter(tenant_id=tid, status__in=OPEN_TICKET_STATUSES)
            .select_related("customer", "assigned_to")
            .order_by("opened_at", "id")
        )
    entries, position = [], 0
    for ticket in tickets:
        waiting = ticket.status == TicketStatus.OPEN
        position += 1 if waiting else 0
        entries.append(
            QueueEntry(
                ticket=ticket,
                position=position if waiting else None,
                waiting_seconds=int((moment - ticket.opened_at).total_seconds()),
            )
        )
    return entries


def ticket(tenant_id: UUID | str, ticket_id: int) -> HandoffTicket:
    with tenant_context(tenant_id) as tid:
        found = (
            HandoffTicket.objects.filter(tenant_id=tid, pk=ticket_id)
            .select_related("customer", "assigned_to")
            .first()
        )
    if found is None:
        raise NotFound("ticket not found")
    return found


def events(tenant_id: UUID | str, ticket_id: int) -> list[TicketEvent]:
    with tenant_context(tenant_id) as tid:
        return list(
            TicketEvent.objects.filter(tenant_id=tid, ticket_id=ticket_id)
            .select_related("actor")
            .order_by("id")
        )


def transcript(tenant_id: UUID | str, conversation_id: int) -> list[MessageLine]:
    """The conversation's latest messages now, including those since the ticket opened."""
    with tenant_context(tenant_id) as tid:
        conversation = Conversation.objects.filter(tenant_id=tid, pk=conversation_id).first()
        return last_messages(conversation) if conversation else []


def canned_replies(tenant_id: UUID | str) -> list[CannedReply]:
    with tenant_context(tenant_id) as tid:
        return list(CannedReply.objects.filter(tenant_id=tid).order_by("title"))


def presence_of(tenant_id: UUID | str, user_id: int) -> str:
    with tenant_context(tenant_id) as tid:
        status = (
            AgentPresence.objects.filter(tenant_id=tid, user_id=user_id)
            .values_list("status", flat=True)
            .first()
        )
    return status or AgentPresence.Status.OFFLINE
