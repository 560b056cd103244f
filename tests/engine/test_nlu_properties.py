"""Properties of the deterministic NLU that must hold for any message, not just the corpus."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.nlu.intent import classify_intent
from journeys.nlu.language import detect_language
from journeys.nlu.spam import spam_score
from journeys.nodes.routing import intent_band
from journeys.state import INTENTS, LANGS
from tests.hypothesis_profiles import examples

_OPENERS = ["hi", "hello", "good morning", "habari", "niaje msee", "mambo", "hey there", "sasa"]
_REQUESTS = [
    ("do you have panadol", "sales_discovery"),
    ("nataka kununua simu", "sales_discovery"),
    ("bei ya hii lotion ni ngapi", "product_question"),
    ("order yangu iko wapi", "order_status"),
    ("what is your till number", "payment_help"),
    ("mnadeliver Rongai", "support_question"),
    ("kuna discount yoyote", "discounts_offers"),
    ("nataka kuongea na mtu", "human_request"),
]
_PLEASANTRIES = ["hi", "hello", "thanks", "asante", "mambo", "niaje", "habari", "poa", "thx"]
_ADDRESS = ["msee", "buda", "bro", "sana", "boss", "manze"]
_WORDS = ["free", "link", "earn", "daily", "join", "nataka", "delivery", "order", "prize", "bei"]
_NAMES = ["Kitengela", "Eldoret", "Samsung", "Safaricom", "Nakuru", "Tecno", "M-Pesa"]
_SENTENCES = [
    "where is my order",
    "nataka viatu size 42",
    "msee nataka kubuy raba",
    "nataka kununua shoes size 40 please",
]


@settings(max_examples=examples(200), deadline=None)
@given(text=st.text(max_size=80))
def test_intent_is_a_known_label_with_a_probability_and_repeatable(text: str) -> None:
    first, second = classify_intent(text), classify_intent(text)
    assert first == second
    assert first.intent in INTENTS
    assert 0.0 <= first.confidence <= 1.0


@settings(max_examples=examples(200), deadline=None)
@given(text=st.text(max_size=80))
def test_language_is_a_known_label_with_a_probability(text: str) -> None:
    result = detect_language(text)
    assert result.language in LANGS
    assert 0.0 <= result.confidence <= 1.0


@pytest.mark.xfail(
    reason="trained model: a statistical model is not invariant here, see issue 25 report",
    strict=False,
)
@settings(max_examples=examples(150), deadline=None)
@given(
    opener=st.sampled_from(_PLEASANTRIES),
    extra=st.lists(st.sampled_from(_PLEASANTRIES + _ADDRESS), max_size=3),
)
def test_any_run_of_pleasantries_is_routable_small_talk(opener: str, extra: list[str]) -> None:
    result = classify_intent(" ".join([opener, *extra]))
    assert (result.intent, intent_band(result.confidence)) == ("spam_casual", "route")


@pytest.mark.xfail(
    reason="trained model: a statistical model is not invariant here, see issue 25 report",
    strict=False,
)
@settings(max_examples=examples(150), deadline=None)
@given(opener=st.sampled_from(_OPENERS), request=st.sampled_from(_REQUESTS))
def test_a_greeting_in_front_never_changes_the_intent(
    opener: str, request: tuple[str, str]
) -> None:
    text, intent = request
    assert classify_intent(f"{opener}, {text}").intent == intent == classify_intent(text).intent


@settings(max_examples=examples(150), deadline=None)
@given(words=st.lists(st.sampled_from(_WORDS), max_size=8), more=st.sampled_from(_WORDS))
def test_adding_words_never_lowers_the_spam_score(words: list[str], more: str) -> None:
    text = " ".join(words)
    assert spam_score(f"{text} {more}") >= spam_score(text)


@settings(max_examples=examples(150), deadline=None)
@given(sentence=st.sampled_from(_SENTENCES), name=st.sampled_from(_NAMES))
def test_a_place_or_brand_name_does_not_change_the_language(sentence: str, name: str) -> None:
    assert detect_language(f"{sentence} {name}").language == detect_language(sentence).language


@settings(max_examples=examples(100), deadline=None)
@given(sentence=st.sampled_from(_SENTENCES + [t for t, _ in _REQUESTS]))
def test_shouting_changes_nothing(sentence: str) -> None:
    assert classify_intent(sentence.upper()) == classify_intent(sentence)
    assert detect_language(sentence.upper()) == detect_language(sentence)
