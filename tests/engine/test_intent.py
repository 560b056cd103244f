"""Intent classification of everyday Kenyan messages, and the SPEC §5.2 routing bands."""

from __future__ import annotations

import pytest

from journeys.nlu.intent import classify_intent
from journeys.nodes.routing import intent_band, journey_of, route
from journeys.state import new_state


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("niko na shida na order yangu", "order_status"),
        ("bei ya raba ni ngapi", "product_question"),
        ("nataka viatu size 42", "sales_discovery"),
        ("sasa msee", "spam_casual"),
        ("mambo", "spam_casual"),
        ("nimelipa lakini sijapata confirmation", "payment_help"),
        ("Where is my order?", "order_status"),
        ("nataka kuongea na mtu", "human_request"),
        ("kuna offer yoyote", "discounts_offers"),
        ("mnadeliver Kitengela?", "support_question"),
        ("hii simu ni bei gani", "product_question"),  # "hii" is not the greeting "hi"
        ("is the jacket still available", "product_question"),  # "still" is not "till"
    ],
)
def test_everyday_messages_get_their_intent_with_routing_confidence(text: str, intent: str) -> None:
    result = classify_intent(text)
    assert (result.intent, intent_band(result.confidence)) == (intent, "route")


@pytest.mark.parametrize("text", ["qwerty zxcv", "", "🙂🙂", "1234 5678"])
def test_messages_with_no_known_word_are_unknown_below_half(text: str) -> None:
    result = classify_intent(text)
    assert result.intent == "unknown"


@pytest.mark.parametrize(
    ("confidence", "band"),
    [
        (1.0, "route"),
        (0.70, "route"),
        (0.6999, "clarify"),
        (0.50, "clarify"),
        (0.4999, "unknown"),
        (0.0, "unknown"),
    ],
)
def test_threshold_bands_are_exactly_those_of_the_spec(confidence: float, band: str) -> None:
    assert intent_band(confidence) == band


def _state(**fields: object):
    return {
        **new_state(tenant_id="t", conversation_id="c", request_id="r"),
        "governor_action": "proceed",
        **fields,
    }


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"intent": "order_status", "intent_confidence": 0.9}, "orders"),
        ({"intent": "order_status", "intent_confidence": 0.6}, "clarify"),
        ({"intent": "order_status", "intent_confidence": 0.4}, "unknown"),
        ({"intent": "unknown", "intent_confidence": 0.95}, "unknown"),
        ({"intent": "human_request", "intent_confidence": 0.9}, "handoff"),
        ({"intent": "payment_help", "intent_confidence": 0.9}, "orders"),
        (
            {
                "intent": "payment_help",
                "intent_confidence": 0.9,
                "order_id": "o1",
                "payment_status": "pending",
            },
            "sales",
        ),
        (
            {"intent": "sales_discovery", "intent_confidence": 0.9, "governor_action": "redirect"},
            "governance",
        ),
        (
            {"intent": "sales_discovery", "intent_confidence": 0.9, "consent_command": "opt_out"},
            "consent",
        ),
    ],
)
def test_route_follows_consent_then_governor_then_intent_band(fields: dict, expected: str) -> None:
    assert route(_state(**fields)) == expected


def test_handoff_route_belongs_to_the_support_journey() -> None:
    assert journey_of("handoff") == "support"
