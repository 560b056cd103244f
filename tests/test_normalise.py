"""tulia.normalise.visible: the one rule for which characters survive, at the gateway
(format characters kept: emoji sequences need ZWJ) and in the engine (all dropped)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from journeys.sanitize import sanitize_inbound
from tulia.normalise import visible
from tulia.whatsapp.sanitize import clean_text

pytestmark = pytest.mark.unit

ZWJ, RLO, NUL = "\u200d", "\u202e", "\x00"
FAMILY = "\U0001f469" + ZWJ + "\U0001f467"


def test_the_gateway_keeps_emoji_joiners_and_drops_controls_and_bidi_overrides() -> None:
    assert clean_text(f"{NUL}hi {FAMILY}{RLO} 42") == f"hi {FAMILY} 42"


def test_the_engine_drops_every_format_character() -> None:
    assert sanitize_inbound(f"ni{ZWJ}ke{RLO} 42{NUL}").text == "nike 42"


@given(st.text())
def test_what_survives_is_never_a_control_surrogate_private_or_bidi_character(raw: str) -> None:
    for keep_format in (True, False):
        kept = visible(raw, keep_format=keep_format)
        for ch in kept:
            category = unicodedata.category(ch)
            assert ch in "\n\t" or category not in ("Cc", "Cs", "Co")
            assert not "\u202a" <= ch <= "\u202e"
            assert not "\u2066" <= ch <= "\u2069"
            assert keep_format or category != "Cf"


@given(st.text())
def test_the_engine_keeps_a_subset_of_what_the_gateway_keeps(raw: str) -> None:
    gateway = visible(raw, keep_format=True)
    assert visible(gateway) == visible(raw)
