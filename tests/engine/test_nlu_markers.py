"""The rule detectors kept as model features: each on a table of yes/no examples."""

from __future__ import annotations

import pytest

from journeys.nlu.markers import (
    GOVERNOR_MARKERS,
    LANGUAGE_MARKERS,
    governor_markers,
    language_markers,
    looks_abusive,
    looks_spammy,
)
from journeys.nlu.product_names import product_name_positions
from journeys.nlu.text import tokens


@pytest.mark.parametrize(
    ("text", "abusive"),
    [
        ("you stupid bot", True),
        ("wewe ni mjinga", True),
        ("f*** you", True),
        ("mbwa wewe", True),
        ("this service is useless, where is my order", False),
        ("nataka chakula ya mbwa", False),
        ("it's been 5 days!", False),
    ],
)
def test_insult_markers(text: str, abusive: bool) -> None:
    assert looks_abusive(text) is abusive


@pytest.mark.parametrize(
    ("text", "spammy"),
    [
        ("Congratulations! you have won 50,000. Click here", True),
        ("tuma 1000 upate 10000 leo", True),
        ("join our investment group and earn 20% weekly", True),
        ("is delivery free?", False),
        ("send me the link to your catalogue", False),
        ("you won't believe how fast delivery was", False),
    ],
)
def test_scam_markers(text: str, spammy: bool) -> None:
    assert looks_spammy(text) is spammy


def _language(text: str) -> dict[str, float]:
    return dict(zip(LANGUAGE_MARKERS, language_markers(text), strict=True))


@pytest.mark.parametrize(
    ("text", "marker", "present"),
    [
        ("msee nilipay jana", "sheng_strong", True),
        ("nimelipa jana", "sheng_strong", False),
        ("nimelipa jana", "sw_votes", True),
        ("where is my order", "sw_votes", False),
        ("where is my order", "en_votes", True),
        # A product's English name inside Swahili is a name, not English speech.
        ("nataka air max size 42", "en_votes", False),
        ("nataka air max size 42", "sw_votes", True),
        ("bei ya power bank ni ngapi", "en_votes", False),
        ("I want air max size 42", "en_votes", True),
        ("nataka hewa safi na air", "en_votes", True),
    ],
)
def test_language_markers(text: str, marker: str, present: bool) -> None:
    assert (_language(text)[marker] > 0) is present


def test_marker_vectors_have_their_declared_length() -> None:
    assert len(governor_markers("hello")) == len(GOVERNOR_MARKERS)
    assert len(language_markers("hello")) == len(LANGUAGE_MARKERS)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("nataka air max size 42", {"air", "max"}),
        ("mna old skool za watoto", {"old", "skool"}),
        ("bei ya air force 1 ni ngapi", {"air", "force"}),
        ("nipe jordan 4 retro", {"jordan"}),
        ("the air is too dry here", set()),  # one word of a name is no name
        ("max ni ngapi", set()),
        ("I want to go for a walk", set()),
        ("the old school uniform", set()),  # only the name's own spelling
    ],
)
def test_product_name_words(text: str, named: set[str]) -> None:
    words = tokens(text)
    assert {words[i] for i in product_name_positions(words)} == named
