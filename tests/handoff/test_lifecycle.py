"""Every transition of the conversation status lifecycle, legal and illegal."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.conversations.models import Conversation
from tulia.handoff.errors import IllegalTransition
from tulia.handoff.lifecycle import Move, bot_may_answer, transition

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


@pytest.mark.parametrize(
    ("status", "answers"),
    [("ai_active", True), ("waiting", False), ("agent_active", False), ("resolved", True)],
)
def test_bot_stays_silent_while_a_person_owns_the_conversation(
    tenant, conversation, status: str, answers: bool
) -> None:
    _force(conversation, status)
    assert bot_may_answer(tenant.id, conversation.pk) is answers


def test_stranger_cannot_move_another_tenants_conversation(tenant, stranger, conversation) -> None:
    with pytest.raises(NotFound):
        transition(stranger.id, conversation.pk, Move.ESCALATE)
    with pytest.raises(NotFound):
        bot_may_answer(stranger.id, conversation.pk)
    assert status_of(tenant, conversation.pk) == "ai_active"


def test_the_silence_check_on_every_inbound_message_is_cheap(
    tenant, conversation, django_assert_num_queries
) -> None:
    # savepoint, set the tenant, read the status, restore, release: nothing per row.
    with django_assert_num_queries(5):
        bot_may_answer(tenant.id, conversation.pk)
