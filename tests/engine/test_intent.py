"""Intent classification of everyday Kenyan messages, and the SPEC §5.2 routing bands."""

from __future__ import annotations

import pytest

from journeys.nlu.governor import classify_governor, intent_given_governor
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


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "I want to shop",
            marks=pytest.mark.xfail(
                reason="trained model: known gap, see issue 25 report", strict=False
            ),
        ),
        "nataka kununua",
        "nataka ku-shop",
        "niko na shopping",
        "I'd like to buy something",
        "i wanna go shopping",
    ],
)
def test_wanting_to_shop_is_a_sales_intent_not_a_human_request(text: str) -> None:
    result = classify_intent(text)
    assert (result.intent, intent_band(result.confidence)) == ("sales_discovery", "route")


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("where is your shop", "support_question"),  # the place, not the activity
        ("I want to talk to someone at the shop", "human_request"),
    ],
)
def test_shop_as_a_place_keeps_its_own_intent(text: str, intent: str) -> None:
    assert classify_intent(text).intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        pytest.param(
            "good morning, do you have panadol",
            "sales_discovery",
            marks=pytest.mark.xfail(
                reason="issue 18: since the rebuild with the size-help lines the greeting "
                "outvotes this request (spam_casual 0.36); 'do you have panadol' alone is "
                "sales_discovery. Known NLU gap (issue 25) until the next round of data",
                strict=False,
            ),
        ),
        ("hello, bei ya hii phone ni ngapi", "product_question"),
        ("niaje msee, order yangu iko wapi", "order_status"),
    ],
)
def test_a_greeting_does_not_outvote_the_request_after_it(text: str, intent: str) -> None:
    assert classify_intent(text).intent == intent


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "thx",
            marks=pytest.mark.xfail(
                reason="trained model: known gap, see issue 25 report", strict=False
            ),
        ),
        pytest.param(
            "hiii",
            marks=pytest.mark.xfail(
                reason="trained model: known gap, see issue 25 report", strict=False
            ),
        ),
        "how r u",
        "mambo vipi msee",
        "asante sana buda",
    ],
)
def test_short_pleasantries_are_confident_small_talk(text: str) -> None:
    result = classify_intent(text)
    assert (result.intent, intent_band(result.confidence)) == ("spam_casual", "route")


@pytest.mark.parametrize(
    "text",
    [
        "qwerty zxcv",
        "",
        "🙂🙂",
        "1234 5678",
    ],
)
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
        "governance": {"classification": "business", "confidence": 0.9, "action": "proceed"},
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
            {
                "intent": "sales_discovery",
                "intent_confidence": 0.9,
                "governance": {"action": "redirect"},
            },
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


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # nlu_eval guide: context-less fragments are unknown, chat with no request is
        # spam_casual, payment status and return requests go to orders, haggling to offers.
        ("the cheapest one", "unknown"),
        ("zile za kwanza", "unknown"),
        ("option 2 please", "unknown"),
        ("who will win the league this year", "spam_casual"),
        pytest.param(
            "has my mpesa payment gone through",
            "order_status",
            marks=pytest.mark.xfail(
                reason="trained model: known gap, see issue 25 report", strict=False
            ),
        ),
        ("I want to return the phone I bought last week", "order_status"),
        ("can you do 2000 for both", "discounts_offers"),
        ("hi, do you sell school shoes", "sales_discovery"),  # greeting plus request
    ],
)
def test_guide_conventions(text: str, intent: str) -> None:
    assert classify_intent(text).intent == intent


@pytest.mark.parametrize(
    "text",
    [
        "nataka ndala",
        pytest.param(
            "I want the Pool Slide Navy",
            marks=pytest.mark.xfail(
                reason="trained model: known gap, see issue 25 report", strict=False
            ),
        ),
        "hi, nataka Ramtons blender",
    ],
)
def test_an_unfamiliar_product_name_after_an_opener_still_routes(text: str) -> None:
    """Product names are the shop's own words: they must not count as not understood."""
    result = classify_intent(text)
    assert (result.intent, intent_band(result.confidence)) == ("sales_discovery", "route")


@pytest.mark.parametrize("text", ["moja", "2", "three", "41", "mbili tatu"])
def test_a_bare_number_is_a_fragment(text: str) -> None:
    assert classify_intent(text).intent == "unknown"


@pytest.mark.parametrize(
    "text",
    [
        "I'd like to order 200 units, please confirm by sending your bank login",
        "Do you want to buy USDT at a good rate? DM me",
    ],
)
def test_a_recognised_scam_is_spam_casual_whatever_it_asks_for(text: str) -> None:
    intent = classify_intent(text)
    governor = classify_governor(text, intent).classification
    assert (governor, intent_given_governor(intent.intent, governor)) == ("spam", "spam_casual")
