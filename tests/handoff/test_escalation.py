"""Opening a ticket: idempotent per open conversation, routed honestly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tenants.context import tenant_context
from tenants.services import update_tenant
from tulia.handoff.desk import claim, resolve
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category, HandoffTicket, Priority
from tulia.handoff.policy import Outcome

from .conftest import make_agent, make_conversation, status_of

pytestmark = pytest.mark.django_db

ASK = HandoffRequest(reason="customer asked for a person", category=Category.HUMAN_REQUEST)
MONDAY_NOON_NAIROBI = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SUNDAY_NIGHT_NAIROBI = datetime(2026, 3, 8, 20, 0, tzinfo=UTC)
WEEKDAY_HOURS = {
    "business_hours": {d: [{"opens": "08:00", "closes": "17:00"}] for d in ("mon", "tue")}
}


def _tickets(tenant) -> list[HandoffTicket]:
    with tenant_context(tenant.id):
        return list(HandoffTicket.objects.all())


def test_same_open_conversation_gets_the_same_ticket(tenant, conversation) -> None:
    make_agent(tenant, "alice")
    first = escalate(tenant.id, conversation.pk, ASK)
    again = escalate(tenant.id, conversation.pk, HandoffRequest("angry", Category.FRUSTRATION))
    assert (first.created, again.created) == (True, False)
    assert again.ticket_id == first.ticket_id
    assert len(_tickets(tenant)) == 1


def test_queued_when_agents_are_on_and_the_bot_goes_silent(tenant, conversation) -> None:
    make_agent(tenant, "alice")
    make_conversation(tenant)  # another customer already waiting ahead
    escalate(tenant.id, make_conversation(tenant).pk, ASK)
    result = escalate(tenant.id, conversation.pk, ASK)
    assert (result.outcome, result.queue_position, result.estimated_wait_minutes) == (
        Outcome.QUEUED,
        2,
        12,
    )
    assert "number 2 in the queue" in result.message
    assert status_of(tenant, conversation.pk) == "waiting"


def test_previous_agent_online_with_room_gets_the_customer_back(tenant, conversation) -> None:
    alice = make_agent(tenant, "alice")
    ticket_id = escalate(tenant.id, conversation.pk, ASK).ticket_id
    assert ticket_id is not None
    claim(tenant.id, ticket_id, alice.pk)
    resolve(tenant.id, ticket_id, alice.pk)
    later = make_conversation(tenant)  # same tenant, different customer: not reconnected
    assert escalate(tenant.id, later.pk, ASK).outcome is Outcome.QUEUED
    with tenant_context(tenant.id):
        from tulia.conversations.models import Conversation

        Conversation.objects.filter(pk=conversation.pk).update(status="ai_active")
    result = escalate(tenant.id, conversation.pk, ASK)
    assert (result.outcome, result.agent_id) == (Outcome.RECONNECTED, alice.pk)
    assert status_of(tenant, conversation.pk) == "agent_active"


def test_nobody_online_is_said_honestly_and_ticket_kept_for_later(tenant, conversation) -> None:
    make_agent(tenant, "alice", presence="offline")
    result = escalate(tenant.id, conversation.pk, ASK)
    assert result.outcome is Outcome.NO_AGENTS
    assert result.ticket_id is not None
    assert "Nobody from our team is available" in result.message
    assert "logged your request" in result.message
    assert status_of(tenant, conversation.pk) == "waiting"  # the bot steps back


def test_after_hours_in_tenant_timezone_names_the_next_opening(tenant, conversation) -> None:
    update_tenant(tenant, handoff=WEEKDAY_HOURS)
    make_agent(tenant, "alice")
    result = escalate(tenant.id, conversation.pk, ASK, now=SUNDAY_NIGHT_NAIROBI)
    assert result.outcome is Outcome.AFTER_HOURS
    assert "we open Mon 08:00" in result.message
    assert escalate(
        tenant.id, make_conversation(tenant).pk, ASK, now=MONDAY_NOON_NAIROBI
    ).outcome is (Outcome.QUEUED)


def test_after_hours_without_permission_opens_no_ticket(tenant, conversation) -> None:
    update_tenant(tenant, handoff={**WEEKDAY_HOURS, "open_ticket_after_hours": False})
    result = escalate(tenant.id, conversation.pk, ASK, now=SUNDAY_NIGHT_NAIROBI)
    assert (result.ticket_id, result.outcome) == (None, Outcome.AFTER_HOURS)
    assert "write again later" in result.message
    assert _tickets(tenant) == []


def test_swahili_customer_is_told_in_swahili(tenant) -> None:
    make_agent(tenant, "alice")
    conversation = make_conversation(tenant, state={"journey": "sales", "response_language": "sw"})
    assert "foleni" in escalate(tenant.id, conversation.pk, ASK).message


def test_the_requests_language_wins_over_the_stored_one(tenant) -> None:
    make_agent(tenant, "alice")
    conversation = make_conversation(tenant, state={"response_language": "en"})
    asked_in_sheng = HandoffRequest("person", Category.HUMAN_REQUEST, language="sheng")
    message = escalate(tenant.id, conversation.pk, asked_in_sheng).message
    assert "Uko namba 1 kwa queue" in message


def test_ticket_carries_the_context_an_agent_needs(tenant) -> None:
    state = {
        "journey": "sales",
        "step": "confirm_amount",
        "cart": [{"sku": "AF1-42", "qty": 1}],
        "order_id": "KX-1001",
        "payment_status": "pending",
    }
    conversation = make_conversation(tenant, state=state)
    ticket_id = escalate(tenant.id, conversation.pk, ASK).ticket_id
    assert ticket_id is not None
    with tenant_context(tenant.id):
        context = HandoffTicket.objects.get(pk=ticket_id).context
    assert context["tenant_id"] == str(tenant.id)
    assert context["customer_id"] == conversation.customer_id
    assert (context["journey"], context["step"]) == ("sales", "confirm_amount")
    assert context["cart"] == [{"sku": "AF1-42", "qty": 1}]
    assert context["order"]["order_id"] == "KX-1001"
    assert context["payment"]["status"] == "pending"
    assert context["transcript_summary"]


def test_stranger_cannot_escalate_another_tenants_conversation(tenant, stranger, conversation):
    from tenants.errors import NotFound

    with pytest.raises(NotFound):
        escalate(stranger.id, conversation.pk, ASK)
    assert _tickets(tenant) == []


def test_an_ended_conversation_is_not_handed_over(tenant, conversation) -> None:
    from tulia.conversations.models import Conversation
    from tulia.handoff.errors import IllegalTransition

    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(status="closed")
    with pytest.raises(IllegalTransition):
        escalate(tenant.id, conversation.pk, ASK)
    assert _tickets(tenant) == []


def test_a_more_serious_second_reason_raises_the_priority_not_the_count(tenant, conversation):
    first = escalate(tenant.id, conversation.pk, ASK)
    escalate(tenant.id, conversation.pk, HandoffRequest("charged twice", Category.PAYMENT_DISPUTE))
    escalate(tenant.id, conversation.pk, HandoffRequest("meh", Category.FRUSTRATION, Priority.LOW))
    [ticket] = _tickets(tenant)
    assert (ticket.pk, ticket.priority) == (first.ticket_id, "high")
