"""Accuracy floors from 5-fold cross-validation and from the second held-out set (dev2).

The first held-out file guided earlier tuning; these two measures keep the classifiers
honest about messages they were not shaped around.
"""

from __future__ import annotations

from functools import cache

from journeys.nlu.corpus import (
    dev2_examples,
    governor_dev2_examples,
    training_examples,
)
from journeys.nlu.crossval import FoldScores, cross_validate, folds
from journeys.nlu.governor import classify_governor
from journeys.nlu.intent import classify_intent
from journeys.nlu.language import detect_language
from journeys.state import INTENTS, LANGS


@cache
def _five_fold() -> FoldScores:
    return cross_validate(training_examples(), k=5)


def test_folds_partition_the_corpus() -> None:
    parts = folds(training_examples(), 5)
    texts = [ex.text for part in parts for ex in part]
    assert sorted(texts) == sorted(ex.text for ex in training_examples())
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_cross_validated_intent_accuracy_is_at_least_085() -> None:
    assert _five_fold().intent_accuracy >= 0.85


def test_cross_validated_language_accuracy_is_at_least_090() -> None:
    assert _five_fold().language_accuracy >= 0.90


def test_dev2_shares_no_message_with_training() -> None:
    seen = {ex.text.casefold() for ex in training_examples()}
    assert [ex.text for ex in dev2_examples() if ex.text.casefold() in seen] == []


def test_dev2_covers_every_intent_and_language_with_150_messages() -> None:
    examples = dev2_examples()
    assert len(examples) >= 150
    assert {ex.intent for ex in examples} == set(INTENTS)
    assert {ex.language for ex in examples} == set(LANGS)


def test_dev2_intent_accuracy_is_at_least_092() -> None:
    examples = dev2_examples()
    assert sum(classify_intent(ex.text).intent == ex.intent for ex in examples) >= 0.92 * len(
        examples
    )


def test_dev2_language_accuracy_is_at_least_093() -> None:
    examples = dev2_examples()
    hits = sum(detect_language(ex.text).language == ex.language for ex in examples)
    assert hits >= 0.93 * len(examples)


def test_dev2_governor_accuracy_is_at_least_090() -> None:
    examples = governor_dev2_examples()
    hits = sum(
        classify_governor(ex.text, classify_intent(ex.text)).classification == ex.intent
        for ex in examples
    )
    assert hits >= 0.90 * len(examples)
