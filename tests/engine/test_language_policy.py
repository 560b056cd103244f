"""Language detection and the SPEC §5.2 reply-language rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.nlu.language import LanguageResult, choose_response_language, detect_language
from tests.hypothesis_profiles import examples

ALL = ["en", "sw", "sheng"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Where is my order? I paid yesterday", "en"),
        ("Habari, naomba kujua bei ya viatu hivi", "sw"),
        ("sasa msee, niko na doh ya 2k", "sheng"),
        ("nataka kubuy raba", "sheng"),
        ("nataka kununua shoes size 40 please", "mixed"),
        ("do you deliver to Eldoret", "en"),  # place names speak for no language
        ("mnapeleka mizigo mpaka Kitengela", "sw"),
        ("delivery ya Kisumu ni siku ngapi", "sw"),  # mixed needs two words of each
        ("do you have viatu za watoto size 28", "mixed"),
        ("nili-pay jana lakini sijapata risiti", "sheng"),  # English stem, Swahili affixes
        ("msee mko na mashoes za kids", "sheng"),  # ma- plural on an English noun
        ("do u sell baby formula", "en"),  # unknown consonant-final words are English
        ("rider hajanicall bado", "sheng"),  # ha-ja-ni- prefixes on an English verb
        ("oya, iyo lotion ni ngapi", "sheng"),
        # A product's English name inside Swahili is a name, not code-switching (issue 18).
        ("nataka air max size 42", "sw"),
        ("mna stan smith nyeupe size 40?", "sw"),
        # A greeting alone carries its register (its confidence is 0: one word).
        ("habari", "sw"),
        ("mambo", "sw"),
        ("niaje", "sheng"),
    ],
)
def test_detects_the_language_of_everyday_messages(text: str, language: str) -> None:
    assert detect_language(text).language == language


def test_confident_allowed_detection_switches_the_reply_language() -> None:
    decision = choose_response_language(
        LanguageResult("sw", 0.75), allowed=ALL, customer_pref="en", tenant_default="en"
    )
    assert (decision.language, decision.reason) == ("sw", "detected")


def test_detection_just_below_threshold_keeps_the_customer_preference() -> None:
    decision = choose_response_language(
        LanguageResult("sw", 0.7499), allowed=ALL, customer_pref="sheng", tenant_default="en"
    )
    assert (decision.language, decision.reason) == ("sheng", "customer_preference")


def test_language_the_tenant_does_not_allow_falls_back_to_the_default() -> None:
    decision = choose_response_language(
        LanguageResult("sheng", 0.95), allowed=["en", "sw"], customer_pref=None, tenant_default="sw"
    )
    assert (decision.language, decision.reason) == ("sw", "tenant_default")


def test_saved_preference_no_longer_allowed_is_ignored() -> None:
    decision = choose_response_language(
        LanguageResult("en", 0.2), allowed=["en"], customer_pref="sheng", tenant_default="en"
    )
    assert decision.reason == "tenant_default"


def test_mixed_is_answered_in_the_saved_or_default_language() -> None:
    decision = choose_response_language(
        LanguageResult("mixed", 0.95), allowed=ALL, customer_pref=None, tenant_default="sw"
    )
    assert decision.language == "sw"


@settings(max_examples=examples(150))
@given(
    detected=st.sampled_from(["en", "sw", "sheng", "mixed"]),
    confidence=st.floats(min_value=0.0, max_value=0.7499),
    default=st.sampled_from(ALL),
    pref=st.none() | st.sampled_from(ALL),
)
def test_low_confidence_never_switches(detected, confidence, default, pref) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 8: Language Policy Compliance."""
    decision = choose_response_language(
        LanguageResult(detected, confidence),
        allowed=ALL,
        customer_pref=pref,
        tenant_default=default,
    )
    assert decision.language == (pref or default)
