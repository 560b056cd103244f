"""What an agent does with a ticket: claim, reply, note, transfer, hand back, resolve.

Every operation takes the tenant and the acting staff user explicitly and runs in one
transaction; the admin desk and the REST API are thin callers of these functions.
"""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth import get_user_model
from django.utils import timezone

from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import TenantMembership
from tulia.conversations.models import Conversation
from tulia.handoff.announce import Notice, announce
from tulia.handoff.errors import AlreadyClaimed, NotStaff, NotYourTicket
from tulia.handoff.lifecycle import Move, transition
from tulia.handoff.models import (
    OPEN_TICKET_STATUSES,
    AgentPresence,
    HandoffTicket,
    TicketEvent,
    TicketStatus,
)
from tulia.handoff.names import public_name
from tulia.text import say
from tulia.whatsapp.outbound import queue_reply
from tulia.whatsapp.purposes import AGENT_REPLY


def _require_staff(tenant_id: UUID, user_id: int) -> None:
    """The actor must belong to this tenant (superusers act for any tenant)."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise NotStaff("unknown user")
    if user.is_superuser:
        return
    if not TenantMembership.objects.filter(tenant_id=tenant_id, user_id=user_id).exists():
        raise NotStaff("this user is not staff of the tenant")


def _ticket(tenant_id: UUID, ticket_id: int, *, lock: bool = False) -> HandoffTicket:
    queryset = HandoffTicket.objects.filter(tenant_id=tenant_id, pk=ticket_id)
    ticket = (queryset.select_for_update() if lock else queryset).first()
    if ticket is None:
        raise NotFound("ticket not found")
    return ticket


def _owned_ticket(tenant_id: UUID, ticket_id: int, agent_id: int) -> HandoffTicket:
    _require_staff(tenant_id, agent_id)  # a membership removed mid-chat ends the access
    ticket = _ticket(tenant_id, ticket_id, lock=True)
    if ticket.status != TicketStatus.ASSIGNED or ticket.assigned_to_id != agent_id:
        raise NotYourTicket("claim this ticket before acting on it")
    return ticket


def _conversation(tenant_id: UUID, ticket: HandoffTicket) -> Conversation:
    return Conversation.objects.get(tenant_id=tenant_id, pk=ticket.conversation_id)


def _log(ticket: HandoffTicket, kind: str, actor_id: int | None, body: str = "") -> None:
    TicketEvent.objects.create(
        tenant_id=ticket.tenant_id, ticket=ticket, kind=kind, actor_id=actor_id, body=body
    )


def claim(tenant_id: UUID | str, ticket_id: int, agent_id: int) -> HandoffTicket:
    """Take an open ticket; of two agents claiming at once exactly one wins."""
    now = timezone.now()
    with tenant_context(tenant_id) as tid:
        _require_staff(tid, agent_id)
        won = HandoffTicket.objects.filter(
            tenant_id=tid, pk=ticket_id, status=TicketStatus.OPEN
        ).update(status=TicketStatus.ASSIGNED, assigned_to_id=agent_id, assigned_at=now)
        ticket = _ticket(tid, ticket_id)
        if not won:
            raise AlreadyClaimed("another agent already has this ticket")
        transition(tid, ticket.conversation_id, Move.CLAIM)
        _log(ticket, TicketEvent.Kind.CLAIMED, agent_id)
        announce(_conversation(tid, ticket), Notice.JOINED, agent_id)
        return ticket


def _agent_name(agent_id: int, language: str) -> str:
    """The name the customer reads with an agent's reply: the display name or first
    name, never the login ("mboga_agent"); "our agent" when neither is set."""
    users = get_user_model().objects.select_related("tenant_membership")
    return public_name(users.filter(pk=agent_id).first()) or say("handoff.our_agent", language)


def reply(
    tenant_id: UUID | str, ticket_id: int, agent_id: int, body: str, request_id: str
) -> list[int]:
    """Send the agent's message to the customer on WhatsApp through the gateway."""
    text = body.strip()
    if not text:
        raise ValueError("a reply cannot be empty")
    with tenant_context(tenant_id) as tid:
        ticket = _owned_ticket(tid, ticket_id, agent_id)
        conversation = _conversation(tid, ticket)
        # Through the gate: outside the 24-hour window the "agent reply waiting" template
        # carries the reply, or the message is recorded as not sent with the reason.
        language = str((conversation.state or {}).get("response_language") or "en")
        facts = {"agent": _agent_name(agent_id, language), "reply": text}
        ids = queue_reply(
            tid, conversation.pk, [text], request_id, purpose=AGENT_REPLY, facts=facts
        )
        _log(ticket, TicketEvent.Kind.REPLY, agent_id, text)
        return ids


def reply_claiming(
    tenant_id: UUID | str, ticket_id: int, agent_id: int, body: str, request_id: str
) -> list[int]:
    """Type and send: replying to a waiting customer claims their ticket first."""
    if not body.strip():
        raise ValueError("a reply cannot be empty")
    with tenant_context(tenant_id) as tid:
        if _ticket(tid, ticket_id).status == TicketStatus.OPEN:
            claim(tid, ticket_id, agent_id)
        return reply(tid, ticket_id, agent_id, body, request_id)


def reopen(tenant_id: UUID | str, ticket_id: int, agent_id: int) -> HandoffTicket:
    """Take a handed-back conversation over again: a new ticket, already this agent's.

    Only while the bot has the conversation (after a hand-back); a resolved or closed
    conversation ends there and the customer's next message starts a new one."""
    with tenant_context(tenant_id) as tid:
        _require_staff(tid, agent_id)
        old = _ticket(tid, ticket_id)
        if old.status != TicketStatus.RESOLVED:
            raise AlreadyClaimed("this ticket is still open; claim it instead")
        newer = HandoffTicket.objects.filter(
            tenant_id=tid, conversation_id=old.conversation_id, status__in=OPEN_TICKET_STATUSES
        ).first()
        if newer is not None:
            raise AlreadyClaimed(f"this conversation is on ticket {newer.pk} now")
        transition(tid, old.conversation_id, Move.CLAIM)
        now = timezone.now()
        ticket = HandoffTicket.objects.create(
            tenant_id=tid, conversation_id=old.conversation_id, customer_id=old.customer_id,
            category=old.category, priority=old.priority, reason=f"reopened from ticket {old.pk}",
            status=TicketStatus.ASSIGNED, context=old.context, assigned_to_id=agent_id,
            assigned_at=now,
        )  # fmt: skip
        _log(ticket, TicketEvent.Kind.CLAIMED, agent_id, f"reopened ticket {old.pk}")
        announce(_conversation(tid, ticket), Notice.JOINED, agent_id)
        return ticket


def add_note(tenant_id: UUID | str, ticket_id: int, author_id: int, body: str) -> TicketEvent:
    """An internal note: visible to staff only, never sent to the customer."""
    text = body.strip()
    if not text:
        raise ValueError("a note cannot be empty")
    with tenant_context(tenant_id) as tid:
        _require_staff(tid, author_id)
        ticket = _ticket(tid, ticket_id)
        return TicketEvent.objects.create(
            tenant_id=tid, ticket=ticket, kind=TicketEvent.Kind.NOTE, actor_id=author_id, body=text
        )


def transfer(tenant_id: UUID | str, ticket_id: int, agent_id: int) -> HandoffTicket:
    """Put the ticket back in the queue for someone else."""
    with tenant_context(tenant_id) as tid:
        ticket = _owned_ticket(tid, ticket_id, agent_id)
        transition(tid, ticket.conversation_id, Move.TRANSFER)
        HandoffTicket.objects.filter(pk=ticket.pk).update(
            status=TicketStatus.OPEN, assigned_to=None, assigned_at=None
        )
        _log(ticket, TicketEvent.Kind.TRANSFERRED, agent_id)
        return _ticket(tid, ticket_id)


def _finish(tenant_id: UUID | str, ticket_id: int, agent_id: int, move: Move, kind: str) -> str:
    with tenant_context(tenant_id) as tid:
        ticket = _owned_ticket(tid, ticket_id, agent_id)
        status = transition(tid, ticket.conversation_id, move)
        HandoffTicket.objects.filter(pk=ticket.pk).update(
            status=TicketStatus.RESOLVED, resolved_at=timezone.now()
        )
        _log(ticket, kind, agent_id)
        if move is Move.HAND_BACK:
            announce(_conversation(tid, ticket), Notice.BOT_BACK)
        return status


def hand_back(tenant_id: UUID | str, ticket_id: int, agent_id: int) -> str:
    """Return the conversation to the bot. Its persisted state is untouched, so the
    engine resumes at the journey and step it paused on (recorded in the ticket)."""
    return _finish(tenant_id, ticket_id, agent_id, Move.HAND_BACK, TicketEvent.Kind.HANDED_BACK)


def resolve(tenant_id: UUID | str, ticket_id: int, agent_id: int, *, close: bool = False) -> str:
    move, kind = (
        (Move.CLOSE, TicketEvent.Kind.CLOSED)
        if close
        else (Move.RESOLVE, TicketEvent.Kind.RESOLVED)
    )
    return _finish(tenant_id, ticket_id, agent_id, move, kind)


def set_display_name(tenant_id: UUID | str, user_id: int, name: str) -> None:
    """The name customers read when this person joins their chat."""
    cleaned = " ".join(name.split())[:60]
    with tenant_context(tenant_id) as tid:
        _require_staff(tid, user_id)
        TenantMembership.objects.filter(tenant_id=tid, user_id=user_id).update(display_name=cleaned)


def follow_activity(tenant_id: UUID | str, user_id: int, *, active: bool) -> str:
    """Presence follows the desk: someone using it is online, someone idle is away.

    Every open admin page polls this, so the usual case (nothing changes) is one read."""
    target = AgentPresence.Status.ONLINE if active else AgentPresence.Status.AWAY
    with tenant_context(tenant_id) as tid:
        rows = AgentPresence.objects.filter(tenant_id=tid, user_id=user_id)
        current = rows.values_list("status", flat=True).first()
        if current is None:
            if active:
                _require_staff(tid, user_id)
                AgentPresence.objects.create(tenant_id=tid, user_id=user_id, status=target)
            return str(target)
        # Idling never brings an offline agent back as "away".
        if current == target or (not active and current != AgentPresence.Status.ONLINE):
            return str(current)
        rows.update(status=target)
        return str(target)


def set_presence(tenant_id: UUID | str, user_id: int, status: str) -> None:
    """An agent goes online, away or offline (only online agents get reconnections)."""
    valid = AgentPresence.Status(status)
    with tenant_context(tenant_id) as tid:
        _require_staff(tid, user_id)
        AgentPresence.objects.update_or_create(
            tenant_id=tid, user_id=user_id, defaults={"status": valid}
        )
