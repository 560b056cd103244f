"""Every transition of the conversation status lifecycle, legal and illegal."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.conversations.models import Conversation
from tulia.handoff.errors import IllegalTransition
from tulia.handoff.lifecycle import Move, transition

from .conftest import status_of

pytestmark = pytest.mark.django_db

STATUSES = ["ai_active", "waiting", "agent_active", "resolved", "closed"]
# Written out independently of the implementation's table (seed 004 lifecycle).
LEGAL = {
    ("escalate", "ai_active"): "waiting",
    ("claim", "waiting"): "agent_active",
    ("claim", "ai_active"): "agent_active",
    ("transfer", "agent_active"): "waiting",
    ("hand_back", "agent_active"): "ai_active",
    ("resolve", "agent_active"): "resolved",
    ("close", "agent_active"): "closed",
    ("close", "waiting"): "closed",
}
CASES = [(move, status) for move in Move for status in STATUSES]


def _force(conversation: Conversation, status: str) -> None:
    with tenant_context(conversation.tenant_id):
        Conversation.objects.filter(pk=conversation.pk).update(status=status)


@pytest.mark.parametrize(("move", "start"), CASES, ids=[f"{m.value}-{s}" for m, s in CASES])
def test_transition_table(tenant, conversation, move: Move, start: str) -> None:
    _force(conversation, start)
    expected = LEGAL.get((move.value, start))
    if expected is None:
        with pytest.raises(IllegalTransition):
            transition(tenant.id, conversation.pk, move)
        assert status_of(tenant, conversation.pk) == start
    else:
        assert transition(tenant.id, conversation.pk, move) == expected
        assert status_of(tenant, conversation.pk) == expected


def test_stranger_cannot_move_another_tenants_conversation(tenant, stranger, conversation) -> None:
    with pytest.raises(NotFound):
        transition(stranger.id, conversation.pk, Move.ESCALATE)
    assert status_of(tenant, conversation.pk) == "ai_active"
