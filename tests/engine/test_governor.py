"""Governor classification and the per-level casual/spam/abuse counting policy."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.nlu.governor import CASUAL_LIMITS, GovernorCounters, classify_governor, govern
from journeys.nlu.intent import classify_intent
from tests.hypothesis_profiles import examples


def _run(classification: str, turns: int, level: int = 2) -> list[str]:
    counters, actions = GovernorCounters(), list[str]()
    for _ in range(turns):
        decision = govern(classification, counters, level)  # type: ignore[arg-type]
        counters = decision.counters
        actions.append(decision.action)
    return actions


@pytest.mark.parametrize(("level", "allowed"), [(0, 0), (1, 1), (2, 2), (3, 4)])
def test_casual_turns_allowed_by_chattiness_level_then_redirect(level: int, allowed: int) -> None:
    actions = _run("casual", 6, level)
    assert actions == ["casual_reply"] * allowed + ["redirect"] * (6 - allowed)


def test_spam_gets_two_replies_then_silence() -> None:
    assert _run("spam", 4) == ["spam_reply", "spam_reply", "disengage", "disengage"]


def test_abuse_stops_on_the_first_message() -> None:
    decision = govern("abuse", GovernorCounters(), 3)
    assert (decision.action, decision.replies) == ("stop", False)


def test_business_proceeds_without_touching_counters() -> None:
    counters = GovernorCounters(casual_turns=5, spam_turns=1)
    assert govern("business", counters, 2).counters == counters


def test_business_turns_do_not_reset_the_casual_allowance() -> None:
    counters = govern("casual", GovernorCounters(), 1).counters
    counters = govern("business", counters, 1).counters
    assert govern("casual", counters, 1).action == "redirect"


@pytest.mark.parametrize(
    ("text", "classification"),
    [
        ("mambo", "casual"),
        ("sasa msee", "casual"),
        ("thank you", "casual"),
        ("nataka viatu size 42", "business"),
        ("this service is useless, where is my order", "business"),
        ("wewe ni mjinga", "abuse"),
        ("you stupid bot", "abuse"),
        ("Congratulations! you have won 50,000. Click here", "spam"),
        ("bonyeza hapa upate mkopo", "spam"),
        ("http://bit.ly/free-money", "spam"),
        ("you won't believe how fast delivery was", "business"),
        ("nataka chakula ya mbwa", "business"),
        ("mbwa wewe", "abuse"),
        ("f*** you", "abuse"),
        ("dumb bot", "abuse"),
        ("join our investment group and earn 20% weekly", "spam"),
        ("make 5000 ksh daily working from home, dm me", "spam"),
        ("pata pesa haraka bila dhamana", "spam"),
        ("tuma 1000 upate 10000 leo", "spam"),
        ("send 500 and get ksh 5,000 today", "spam"),
        ("nimetuma 1000 kwa till yenu", "business"),
        ("is delivery free?", "business"),
        pytest.param(
            "do you deliver daily and is it free",
            "business",
            marks=pytest.mark.xfail(
                reason="issue 25: read right by the nlu branch's model, misread again by the "
                "model rebuilt after merging issue 18's size lines",
                strict=False,
            ),
        ),  # two cues, clearly a request
        ("hello, do you have size 8 heels", "business"),
        ("oya msee", "casual"),
    ],
)
def test_classifies_business_casual_spam_and_abuse(text: str, classification: str) -> None:
    assert classify_governor(text, classify_intent(text)).classification == classification


_CLASSES = st.sampled_from(["business", "casual", "spam", "abuse"])


@settings(max_examples=examples(200))
@given(sequence=st.lists(_CLASSES, max_size=30), level=st.integers(0, 3))
def test_no_sequence_of_messages_exceeds_the_limits(sequence, level) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 9: Conversation Governance.

    Whatever order messages come in, casual replies never exceed the level's allowance,
    spam gets at most two replies, abuse none, and business always proceeds."""
    counters, actions = GovernorCounters(), []
    for classification in sequence:
        decision = govern(classification, counters, level)
        counters = decision.counters
        actions.append((classification, decision.action))
    assert sum(a == "casual_reply" for _, a in actions) <= CASUAL_LIMITS[level]
    assert sum(a == "spam_reply" for _, a in actions) <= 2
    assert all(a == "stop" for c, a in actions if c == "abuse")
    assert all(a == "proceed" for c, a in actions if c == "business")


@pytest.mark.parametrize(
    ("text", "classification", "intent"),
    [
        # nlu_eval guide: an insult outranks the request, which keeps its business intent.
        ("where is my parcel you clowns", "abuse", "order_status"),
        ("mjinga wewe, nitumie paybill", "abuse", "payment_help"),
        # The reversal scam is spam; a customer who paid twice is business.
        ("hello I sent you 2000 by mistake kindly send it back", "spam", "spam_casual"),
        ("nimekutumia pesa kimakosa tafadhali nirudishie", "spam", "spam_casual"),
        ("I paid twice by mistake for my order", "business", "payment_help"),
        # Small talk and questions about the bot are casual; frustration stays business.
        ("wewe ni roboti ama mtu", "casual", "spam_casual"),
        ("it's been a week, where is my order!", "business", "order_status"),
    ],
)
def test_guide_conventions_for_governor_and_intent(
    text: str, classification: str, intent: str
) -> None:
    result = classify_intent(text)
    assert (classify_governor(text, result).classification, result.intent) == (
        classification,
        intent,
    )
