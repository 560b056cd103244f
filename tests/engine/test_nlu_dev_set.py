"""The dev set (journeys/nlu/data/dev4.tsv): well formed, and no classifier slips on it.

It was tuned on, so these floors guard against regressions; the honest figures come
from bench/nlu.py on the evaluation set, which nothing is tuned on.
"""

from __future__ import annotations

from functools import cache

import pytest

from journeys.nlu.labelled import (
    DEV_SET,
    LANGUAGE_DEV_SETS,
    Labelled,
    Predicted,
    graph_pass,
    load_languages,
    load_set,
)
from journeys.nlu.language import detect_language
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

FLOORS = {"intent": 0.90, "language": 0.97, "governor": 0.95}


@cache
def _judged() -> tuple[tuple[Labelled, Predicted], ...]:
    return tuple((row, graph_pass(row.text)) for row in load_set(DEV_SET))


def test_every_row_has_valid_labels_in_every_language() -> None:
    rows = [row for row, _ in _judged()]
    assert len(rows) >= 600
    assert {row.language for row in rows} == set(LANGS)
    assert {row.intent for row in rows} == set(INTENTS)
    assert {row.governor for row in rows} == set(GOVERNOR_CLASSES)


@pytest.mark.parametrize("label", sorted(FLOORS))
def test_accuracy_stays_above_its_floor(label: str) -> None:
    judged = _judged()
    hits = sum(getattr(row, label) == getattr(seen, label) for row, seen in judged)
    assert hits / len(judged) >= FLOORS[label]


# dev5-dev10 train the language model (journeys/nlu/DATA.md); these three only measure.
LANGUAGE_FLOORS = {
    "dev11": 0.96,
    "dev12": 0.97,
    "dev13": 0.97,
}


@pytest.mark.parametrize("name", sorted(LANGUAGE_FLOORS))
def test_subtle_sheng_and_code_mixing_are_told_from_swahili(name: str) -> None:
    rows = load_languages(LANGUAGE_DEV_SETS[name])
    assert {"sw", "sheng", "mixed"} <= {language for _, language in rows}
    hits = sum(detect_language(text).language == language for text, language in rows)
    assert hits / len(rows) >= LANGUAGE_FLOORS[name]
