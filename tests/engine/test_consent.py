"""Consent commands: keyword messages and explicit phrases, without everyday false alarms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.nlu.consent import detect_consent_command
from tests.hypothesis_profiles import examples


@pytest.mark.parametrize(
    "text",
    [
        "STOP", "stop", "Stop.", "stop pls", "UNSUBSCRIBE", "Acha", "ÁCHA!", "acha bana",
        "sitaki", "sitaki tena", "acha kunitumia messages", "stop messages",
        "please stop sending me these", "usinitumie ujumbe", "don't text me again",
        "remove me from your list", "opt out", "STOP ALL",
    ],
)  # fmt: skip
def test_opt_out_commands_are_recognised(text: str) -> None:
    command = detect_consent_command(text)
    assert command is not None
    assert command.kind == "opt_out"


@pytest.mark.parametrize(
    "text",
    [
        "can I stop by the shop tomorrow?", "stop the order, I want the red one",
        "sitaki hii, nataka ile nyekundu", "acha nione kwanza", "does the bus stop near you",
        "remove me the blue one from the cart", "nataka viatu", "",
    ],
)  # fmt: skip
def test_ordinary_sentences_are_not_consent_commands(text: str) -> None:
    assert detect_consent_command(text) is None


@pytest.mark.parametrize("text", ["anza tena", "Anza tena tafadhali", "opt in"])
def test_start_again_phrases_opt_back_in(text: str) -> None:
    command = detect_consent_command(text)
    assert command is not None
    assert command.kind == "opt_in"


def test_start_opts_back_in() -> None:
    command = detect_consent_command("START")
    assert command is not None
    assert command.kind == "opt_in"


def test_tenant_keywords_count_as_whole_message_commands() -> None:
    assert detect_consent_command("basi", extra_keywords=["Basi"]) is not None
    assert detect_consent_command("basi nataka hii", extra_keywords=["basi"]) is None


@pytest.mark.parametrize("text", ["sitaki", "Acha!", "wacha bana"])
def test_bare_refusal_answers_the_bots_question_instead_of_opting_out(text: str) -> None:
    assert detect_consent_command(text, awaiting_answer=True) is None


@pytest.mark.parametrize("text", ["STOP", "unsubscribe", "acha kunitumia messages"])
def test_explicit_opt_out_counts_even_while_awaiting_an_answer(text: str) -> None:
    assert detect_consent_command(text, awaiting_answer=True) is not None


_FILLER = st.sampled_from(["", "please", "pls", "tafadhali", "bana", "msee", "now"])
_PUNCT = st.sampled_from(["", ".", "!", "!!", " ?", " 🙏"])


@settings(max_examples=examples(150))
@given(
    word=st.sampled_from(["stop", "unsubscribe", "acha", "sitaki", "stopall"]),
    upper=st.lists(st.booleans(), min_size=11, max_size=11),
    before=_FILLER,
    after=_FILLER,
    punct=_PUNCT,
)
def test_opt_out_keyword_survives_case_fillers_and_punctuation(
    word, upper, before, after, punct
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 10: Immediate Consent Processing.

    However the keyword is typed, the command is recognised in the same message."""
    cased = "".join(ch.upper() if up else ch for ch, up in zip(word, upper, strict=False))
    command = detect_consent_command(f"{before} {cased}{punct} {after}")
    assert command is not None
    assert command.kind == "opt_out"
