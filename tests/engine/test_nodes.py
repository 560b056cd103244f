"""Governance through the compiled graph: consent, the classifiers and the governor's
replies, each turn run by `handle_turn` as the gateway runs it (the graph's own order,
never a re-implementation of it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from journeys.context import RunContext
from journeys.flows import understand
from journeys.flows.state import FlowState
from journeys.handler import initial_state, run_graph
from journeys.llm_emulator import Reply, ServerError
from journeys.nlu.corpus import heldout_examples
from journeys.nodes.deps import EngineDeps
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.flows.chat import Chat, start_chat
from tests.hypothesis_profiles import examples
from tulia import clock

pytestmark = pytest.mark.django_db
MOMENT = 1_800_000_000.0  # any fixed time
UNSURE_TEXT = "mhudumu wa kusafirisha atafika lini"
READING = {
    "intent": "order_status", "intent_confidence": 0.9, "language": "sw",
    "language_confidence": 0.9, "classification": "abuse", "governor_confidence": 0.9,
}  # fmt: skip


def _chat(tenant: Tenant, **settings_: Any) -> Chat:
    if settings_:
        update_tenant(tenant, **settings_)
    return start_chat(tenant)


def _path(chat: Chat) -> list[str]:
    return list(chat.state["graph_path"])


def test_stop_is_handled_before_classifiers_with_a_confirmation(tenant: Tenant) -> None:
    chat = _chat(tenant)
    reply = chat.send("STOP")
    assert (chat.state["consent_command"], chat.state["marketing_opt_in"]) == ("opt_out", False)
    assert "record_consent" in _path(chat)
    assert "intent_classify" not in _path(chat)
    assert "Kicks Nairobi" in reply


def test_swahili_opt_out_is_confirmed_in_swahili(tenant: Tenant) -> None:
    chat = _chat(tenant, default_language="sw", allowed_languages=["sw", "en"])
    reply = chat.send("acha kunitumia messages")
    assert chat.state["consent_command"] == "opt_out"
    assert "matangazo" in reply


def test_business_message_is_classified_and_routed(tenant: Tenant) -> None:
    chat = _chat(tenant, allowed_languages=["en", "sw", "sheng"])
    chat.send("nataka viatu size 42")
    state = chat.state
    assert (state["intent"], state["governance"]["action"]) == ("sales_discovery", "proceed")
    assert _path(chat)[_path(chat).index("detect_escalation") + 1] == "sales"
    assert (state["response_language"], state["llm_calls"]) == ("sw", 0)


def test_casual_allowance_is_counted_across_turns_then_redirected(tenant: Tenant) -> None:
    chat = _chat(tenant, max_chattiness_level=1, bot_name="Tuli")
    chat.send("mambo")
    first = (chat.state["governance"]["action"], chat.state["casual_turns"])
    reply = chat.send("sasa msee")
    assert first == ("casual_reply", 1)
    assert (chat.state["governance"]["action"], chat.state["casual_turns"]) == ("redirect", 2)
    assert "governance" in _path(chat)
    assert reply


def test_spam_is_silenced_after_two_replies(tenant: Tenant) -> None:
    chat = _chat(tenant)
    replies = [chat.send("click here to win an iphone") for _ in range(3)]
    assert [bool(r) for r in replies] == [True, True, False]


def test_tenant_that_disallows_sheng_answers_sheng_in_its_default(tenant: Tenant) -> None:
    chat = _chat(tenant, allowed_languages=["en", "sw"], default_language="en")
    chat.send("niaje msee nataka kubuy raba")
    assert (chat.state["detected_language"], chat.state["response_language"]) == ("sheng", "en")


def test_sitaki_answering_a_question_does_not_withdraw_consent(tenant: Tenant) -> None:
    chat = _chat(tenant)
    chat.state = {"awaiting_answer": True}
    chat.send("sitaki")
    assert chat.state["consent_command"] is None
    assert "record_consent" not in _path(chat)


def test_a_scam_dressed_as_an_order_is_stored_as_spam_casual(tenant: Tenant) -> None:
    chat = _chat(tenant)
    chat.send("I'd like to order 200 units, please confirm by sending your bank login")
    assert (chat.state["governance"]["classification"], chat.state["intent"]) == (
        "spam",
        "spam_casual",
    )


def test_unsure_intent_is_settled_by_the_llm_and_counted(turn, ctx, emulator, make_gateway) -> None:
    """One node alone: the cascade asks the model only when the classifier is unsure."""
    emulator.default = Reply(READING)
    deps = EngineDeps(gateway=make_gateway())
    update = understand.intent_classify(turn(UNSURE_TEXT), ctx, deps)
    assert (update["intent"], update["llm_calls"]) == ("order_status", 1)


OFFLINE = EngineDeps()


def _classify(state: FlowState, ctx: RunContext, deps: EngineDeps = OFFLINE) -> FlowState:
    """The three classifier nodes alone, each reading what the one before it wrote."""
    for node in (
        understand.intent_classify,
        understand.language_policy,
        understand.governor_spam_casual,
    ):
        state = {**state, **node(state, ctx, deps)}
    return state


def test_one_llm_call_answers_all_three_classifiers(turn, ctx, emulator, make_gateway) -> None:
    """In `llm` mode every node wants the model; the turn still asks it once."""
    emulator.default = Reply(READING)
    gateway = make_gateway()
    deps = EngineDeps(gateway=replace(gateway, settings=replace(gateway.settings, mode="llm")))
    state = _classify(turn(UNSURE_TEXT), ctx, deps)
    assert len(emulator.requests) == 1 == state["llm_calls"]
    assert (state["intent"], state["detected_language"], state["governance"]["classification"]) == (
        "order_status", "sw", "abuse",
    )  # fmt: skip


def test_a_failed_reading_is_not_retried_by_the_next_node(
    turn, ctx, emulator, make_gateway
) -> None:
    emulator.default = ServerError()
    gateway = make_gateway()
    deps = EngineDeps(gateway=replace(gateway, settings=replace(gateway.settings, mode="llm")))
    alone = _classify(turn(UNSURE_TEXT), ctx)
    state = _classify(turn(UNSURE_TEXT), ctx, deps)
    assert len(emulator.requests) == 1 == state["llm_calls"]
    assert state["intent"] == alone["intent"]
    assert state["detected_language"] == alone["detected_language"]


_CONFIGS = st.fixed_dictionaries(
    {
        "max_chattiness_level": st.integers(0, 3),
        "default_language": st.sampled_from(["en", "sw", "sheng"]),
        "casual_turns": st.integers(0, 5),
        "spam_turns": st.integers(0, 3),
    }
)


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    text=st.sampled_from([ex.text for ex in heldout_examples()] + ["STOP", "mambo"]),
    config=_CONFIGS,
    turn_count=st.integers(0, 50),
)
def test_same_message_in_the_same_state_gives_the_same_turn(
    tenant: Tenant, text: str, config: dict[str, Any], turn_count: int
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 14: Deterministic replies.

    The compiled graph run twice on one message and one stored state gives identical
    classifications, counters and reply text."""
    chat = start_chat(tenant)
    chat.state, chat.turn_number = dict(config), turn_count
    turn = chat.turn_input(text)
    with clock.held_at(MOMENT):  # the turn stamps when it was seen
        first, again = (run_graph(turn, initial_state(turn)) for _ in range(2))
    assert first == again
