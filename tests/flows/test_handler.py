"""handle_turn as the gateway uses it: silence under a human, state as stored JSON,
consent recorded at once, failing tools, and what a handoff ticket carries."""

from __future__ import annotations

import json

import pytest

from journeys.handler import handle_turn
from tenants.context import tenant_context
from tenants.models import ConsentEvent, Tenant
from tenants.services import record_consent
from tests.flows.chat import Chat, start_chat
from tests.flows.effects import observed, ticket_context
from tools import registry
from tulia.conversations.models import Conversation

pytestmark = pytest.mark.django_db


def _set_status(chat: Chat, status: str) -> None:
    with tenant_context(chat.tenant.id) as tid:
        Conversation.objects.filter(tenant_id=tid, pk=chat.conversation_id).update(status=status)


@pytest.mark.parametrize("status", ["agent_active"])
def test_no_bot_reply_while_a_person_has_the_conversation(shop: Tenant, status: str) -> None:
    chat = start_chat(shop)
    chat.send("I want sneakers")
    _set_status(chat, status)
    output = handle_turn(chat.turn_input("hello? anyone"))
    assert output.replies == []
    assert output.state is not None
    assert output.state["sale"]["step"] == "choose"  # the sale waits with the customer
    assert output.state["graph_path"][-2:] == ["with_person", "finish"]  # no journey ran


@pytest.mark.parametrize("status", ["resolved", "closed"])
def test_a_finished_conversation_gets_no_reply_and_keeps_its_state(
    shop: Tenant, status: str
) -> None:
    """The one silence rule (SPEC §8): the bot answers an open conversation it has; with
    a person it only honours STOP and the waiting notice; a resolved or closed one is
    over (the customer's next message opens a new conversation), so nothing runs."""
    chat = start_chat(shop)
    chat.send("I want sneakers")
    _set_status(chat, status)
    for line in ("hello? anyone", "STOP"):
        output = handle_turn(chat.turn_input(line))
        assert output.replies == []
        assert output.state is None  # the stored state is left as it was


def test_stored_state_is_json_and_a_reloaded_state_continues_the_sale(shop: Tenant) -> None:
    chat = start_chat(shop)
    chat.send("I want sneakers")
    chat.state = json.loads(json.dumps(chat.state))  # what the database gives back
    assert "Air Runner Black" in chat.send("1")
    assert chat.state["sale"]["step"] == "variant"
    assert chat.state["turn_count"] == 2


def test_every_turn_runs_the_whole_graph_once(shop: Tenant) -> None:
    chat = start_chat(shop)
    chat.send("I want sneakers")
    path = chat.state["graph_path"]
    assert path[0] == "begin"
    assert path[-1] == "finish"
    assert path.count("begin") == 1


def test_stop_withdraws_marketing_consent_in_the_same_turn(shop: Tenant) -> None:
    chat = start_chat(shop)
    record_consent(shop.id, chat.customer.pk, kind="marketing", action="granted", source="admin")
    assert chat.send("STOP")
    found = observed(chat)
    assert found["marketing_opt_in"] is False
    with tenant_context(shop.id) as tid:
        last = ConsentEvent.objects.filter(tenant_id=tid, customer_id=chat.customer.pk).last()
    assert last is not None
    assert last.action == "withdrawn"
    assert last.evidence == "STOP"


def test_a_missing_tool_gets_a_polite_reply_not_a_crash(
    shop: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(registry.TOOL_MODULES, "kb_retrieve")
    chat = start_chat(shop)
    reply = chat.send("what is your return policy?")
    assert reply
    assert "Policy" not in reply


def test_two_consecutive_tool_errors_hand_over_to_a_person(
    shop: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(registry.TOOL_MODULES, "kb_retrieve")
    chat = start_chat(shop)
    chat.send("what is your return policy?")
    assert observed(chat)["tickets"] == 0
    chat.send("how long does delivery take?")
    assert observed(chat)["ticket_categories"] == ["tool_errors"]


def test_handoff_ticket_carries_journey_step_reason_and_summary(shop: Tenant) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 12: Escalation Context Preservation"""
    chat = start_chat(shop)
    chat.send("I want sneakers")
    chat.send("1")
    chat.send("I want to speak to a human please")
    context = ticket_context(chat)
    assert str(context["tenant_id"]) == str(shop.id)
    assert context["customer_id"] == chat.customer.pk
    text = json.dumps(context, default=str)
    assert "sales" in text  # the journey
    assert "variant" in text  # the step the sale was at
    assert "I want sneakers" in text  # the transcript summary


def test_payment_dispute_escalates_with_its_category(stk_only_shop: Tenant) -> None:
    chat = start_chat(stk_only_shop)
    reply = chat.send("I was charged twice for my order, nimekatwa mara mbili")
    assert reply
    assert observed(chat)["ticket_categories"] == ["payment_dispute"]


def test_a_retried_turn_does_not_create_a_second_order(stk_only_shop: Tenant) -> None:
    """The gateway may run a turn again (same request id, the state from before it)."""
    chat = start_chat(stk_only_shop)
    for line in ("I want sneakers", "1", "41"):
        chat.send(line)
    turn = chat.turn_input("2")
    first, again = handle_turn(turn), handle_turn(turn)
    assert first.replies == again.replies
    assert observed(chat)["orders"] == 1
