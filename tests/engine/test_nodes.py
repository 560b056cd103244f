"""Governance nodes run in graph order on a plain state, as the graph will run them."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.context import RunContext
from journeys.llm_emulator import Reply, ServerError
from journeys.nlu.corpus import heldout_examples
from journeys.nodes import governance, responses
from journeys.nodes.deps import EngineDeps
from journeys.nodes.routing import route
from journeys.nodes.turn import start_turn
from journeys.state import ConversationState, new_state
from tests.hypothesis_profiles import examples

OFFLINE = EngineDeps()
UNSURE_TEXT = "mhudumu wa kusafirisha atafika lini"
READING = {
    "intent": "order_status", "intent_confidence": 0.9, "language": "sw",
    "language_confidence": 0.9, "classification": "abuse", "governor_confidence": 0.9,
}  # fmt: skip
PIPELINE = (
    governance.intent_classify,
    governance.language_policy,
    governance.governor_spam_casual,
)


def _run_turn(state, ctx, deps=OFFLINE) -> ConversationState:
    """Consent first; if it did not answer, the three classifiers, then governance replies."""
    state = {**state, **governance.consent_check(state, ctx, deps)}
    if state["consent_command"]:
        return state
    for node in PIPELINE:
        state = {**state, **node(state, ctx, deps)}
    if route(state) == "governance":
        state = {**state, **responses.governance_response(state, ctx, deps)}
    return state


def test_stop_is_handled_before_classifiers_with_a_confirmation(turn, ctx) -> None:
    state = _run_turn(turn("STOP", tenant_name="Kicks Nairobi", marketing_opt_in=True), ctx)
    assert (state["consent_command"], state["marketing_opt_in"], route(state)) == (
        "opt_out",
        False,
        "consent",
    )
    assert "Kicks Nairobi" in (state["response_text"] or "")


def test_swahili_opt_out_is_confirmed_in_swahili(turn, ctx) -> None:
    state = _run_turn(turn("acha kunitumia messages", default_language="sw"), ctx)
    assert state["consent_command"] == "opt_out"
    assert "matangazo" in (state["response_text"] or "")


def test_business_message_is_classified_and_routed(turn, ctx) -> None:
    state = _run_turn(turn("nataka viatu size 42", default_language="en"), ctx)
    assert (state["intent"], state["governor_action"], route(state)) == (
        "sales_discovery",
        "proceed",
        "sales",
    )
    assert (state["response_language"], state["llm_calls"]) == ("sw", 0)


def test_casual_allowance_is_counted_across_turns_then_redirected(turn, ctx) -> None:
    state = turn("mambo", max_chattiness_level=1, tenant_name="Kicks", bot_name="Tuli")
    state = _run_turn(state, ctx)
    first = (state["governor_action"], state["casual_turns"])
    state = _run_turn(turn("sasa msee", base=state), ctx)
    assert first == ("casual_reply", 1)
    assert (state["governor_action"], state["casual_turns"]) == ("redirect", 2)
    assert state["response_text"]


def test_spam_is_silenced_after_two_replies(turn, ctx) -> None:
    state = turn("click here to win an iphone")
    replies = []
    for _ in range(3):
        state = _run_turn(state, ctx)
        replies.append(state["response_text"])
        state = turn("click here to win an iphone", base=state)
    assert [bool(r) for r in replies] == [True, True, False]


def test_tenant_that_disallows_sheng_answers_sheng_in_its_default(turn, ctx) -> None:
    state = turn(
        "niaje msee nataka kubuy raba", allowed_languages=["en", "sw"], default_language="en"
    )
    state = _run_turn(state, ctx)
    assert (state["detected_language"], state["response_language"]) == ("sheng", "en")


def test_unsure_intent_is_settled_by_the_llm_and_counted(turn, ctx, emulator, make_gateway) -> None:
    emulator.default = Reply(READING)
    deps = EngineDeps(gateway=make_gateway())
    state = turn(UNSURE_TEXT)
    update = governance.intent_classify(state, ctx, deps)
    assert (update["intent"], update["llm_calls"]) == ("order_status", 1)


def test_one_llm_call_answers_all_three_classifiers(turn, ctx, emulator, make_gateway) -> None:
    """In `llm` mode every node wants the model; the turn still asks it once."""
    emulator.default = Reply(READING)
    gateway = make_gateway()
    deps = EngineDeps(gateway=replace(gateway, settings=replace(gateway.settings, mode="llm")))
    state = _run_turn(turn(UNSURE_TEXT), ctx, deps)
    assert len(emulator.requests) == 1 == state["llm_calls"]
    assert (state["intent"], state["detected_language"], state["governor_classification"]) == (
        "order_status", "sw", "abuse",
    )  # fmt: skip


def test_a_failed_reading_is_not_retried_by_the_next_node(
    turn, ctx, emulator, make_gateway
) -> None:
    emulator.default = ServerError()
    gateway = make_gateway()
    deps = EngineDeps(gateway=replace(gateway, settings=replace(gateway.settings, mode="llm")))
    alone = _run_turn(turn(UNSURE_TEXT), ctx)
    state = _run_turn(turn(UNSURE_TEXT), ctx, deps)
    assert len(emulator.requests) == 1 == state["llm_calls"]
    assert state["intent"] == alone["intent"]
    assert state["detected_language"] == alone["detected_language"]


def test_same_message_same_state_same_reply(turn, ctx) -> None:
    first = _run_turn(turn("mambo", tenant_name="Kicks", bot_name="Tuli"), ctx)
    again = _run_turn(turn("mambo", tenant_name="Kicks", bot_name="Tuli"), ctx)
    assert first["response_text"] == again["response_text"]


def test_sitaki_answering_a_question_does_not_withdraw_consent(turn, ctx) -> None:
    state = _run_turn(turn("sitaki", awaiting_answer=True, marketing_opt_in=True), ctx)
    assert state["consent_command"] is None
    assert state["marketing_opt_in"] is True


_CONFIGS = st.fixed_dictionaries(
    {
        "max_chattiness_level": st.integers(0, 3),
        "default_language": st.sampled_from(["en", "sw", "sheng"]),
        "casual_turns": st.integers(0, 5),
        "spam_turns": st.integers(0, 3),
        "tenant_name": st.sampled_from(["Kicks", "Mama Mboga", None]),
    }
)


@settings(max_examples=examples(100), deadline=None)
@given(
    text=st.sampled_from([ex.text for ex in heldout_examples()] + ["STOP", "mambo"]),
    config=_CONFIGS,
    turn_count=st.integers(0, 50),
)
def test_same_message_in_the_same_state_gives_the_same_turn(text, config, turn_count) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 14: Deterministic replies.

    Running the governance nodes twice on one message and one state gives identical
    classifications, counters and reply text."""
    ctx = RunContext(tenant_id="t", customer_id="c", conversation_id="conv", request_id="r")
    base = cast(
        ConversationState,
        {**new_state(tenant_id="t", conversation_id="conv", request_id="r"), **config},
    )
    base["turn_count"] = turn_count
    state = {**base, **start_turn(base, text)}
    assert _run_turn(dict(state), ctx) == _run_turn(dict(state), ctx)


def test_a_scam_dressed_as_an_order_is_stored_as_spam_casual(turn, ctx) -> None:
    text = "I'd like to order 200 units, please confirm by sending your bank login"
    state = _run_turn(turn(text), ctx)
    assert (state["governor_classification"], state["intent"]) == ("spam", "spam_casual")
