"""The conversation status lifecycle as compare-and-set transitions (seed 004).

Each move is one `UPDATE … WHERE status IN (allowed)`: PostgreSQL re-checks the WHERE
after waiting on a concurrent writer's row lock, so of two agents claiming at once
exactly one sees a row updated; the other is told who was faster. No read-then-write.
"""

from __future__ import annotations

from enum import StrEnum
from uuid import UUID

from django.utils import timezone

from tenants.accessors import tenant_scope
from tenants.errors import NotFound
from tulia.conversations.models import Conversation
from tulia.handoff.errors import IllegalTransition

S = Conversation.Status


class Move(StrEnum):
    ESCALATE = "escalate"  # the bot hands over: into the queue
    CLAIM = "claim"  # an agent takes it (from the queue, or a deferred/reconnected ticket)
    TRANSFER = "transfer"  # the agent puts it back in the queue
    HAND_BACK = "hand_back"  # the bot resumes where it paused
    RESOLVE = "resolve"
    CLOSE = "close"


TRANSITIONS: dict[Move, tuple[frozenset[str], str]] = {
    Move.ESCALATE: (frozenset({S.AI_ACTIVE}), S.WAITING),
    Move.CLAIM: (frozenset({S.WAITING, S.AI_ACTIVE}), S.AGENT_ACTIVE),
    Move.TRANSFER: (frozenset({S.AGENT_ACTIVE}), S.WAITING),
    Move.HAND_BACK: (frozenset({S.AGENT_ACTIVE}), S.AI_ACTIVE),
    Move.RESOLVE: (frozenset({S.AGENT_ACTIVE}), S.RESOLVED),
    Move.CLOSE: (frozenset({S.AGENT_ACTIVE, S.WAITING}), S.CLOSED),
}


def target_of(move: Move, current: str) -> str:
    """The status `move` leads to from `current`, or IllegalTransition (pure)."""
    sources, target = TRANSITIONS[move]
    if current not in sources:
        raise IllegalTransition(f"cannot {move.value} a conversation that is {current}")
    return target


def transition(tenant_id: UUID | str, conversation_id: int, move: Move) -> str:
    """Apply `move` atomically; returns the new status."""
    sources, target = TRANSITIONS[move]
    # One guarded UPDATE (nothing written when it refuses): the caller's open context
    # (the handoff tool's) is joined without a savepoint.
    with tenant_scope(tenant_id) as tid:
        updated = Conversation.objects.filter(
            tenant_id=tid, pk=conversation_id, status__in=sources
        ).update(status=target, updated_at=timezone.now())
        if updated == 1:
            return target
        current = (
            Conversation.objects.filter(tenant_id=tid, pk=conversation_id)
            .values_list("status", flat=True)
            .first()
        )
    if current is None:
        raise NotFound("conversation not found")
    raise IllegalTransition(f"cannot {move.value} a conversation that is {current}")
