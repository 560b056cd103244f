"""k-fold cross-validation of the intent and language classifiers on the training corpus.

The held-out files were all read while tuning, so their scores flatter us a little;
cross-validation scores every training message with a model that never saw it. Folds
are dealt round-robin in the order of a hash of each text: mixed across intents and
languages (the corpus file is grouped by both), and the same on every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from journeys.nlu.corpus import Example
from journeys.nlu.intent import build_model, classify_with
from journeys.nlu.language import build_lexicon, detect_with


@dataclass(frozen=True, slots=True)
class FoldScores:
    intent_accuracy: float
    language_accuracy: float
    misses: tuple[tuple[Example, str, str], ...]  # example, predicted intent, language


def folds(examples: Sequence[Example], k: int) -> list[list[Example]]:
    shuffled = sorted(examples, key=lambda ex: hashlib.sha256(ex.text.encode()).digest())
    return [shuffled[i::k] for i in range(k)]


def cross_validate(examples: Sequence[Example], k: int = 5) -> FoldScores:
    parts = folds(examples, k)
    intent_hits = language_hits = 0
    misses: list[tuple[Example, str, str]] = []
    for i, test in enumerate(parts):
        train = [ex for j, part in enumerate(parts) if j != i for ex in part]
        model, lex = build_model(train), build_lexicon(train)
        for ex in test:
            intent = classify_with(model, ex.text).intent
            language = detect_with(lex, ex.text).language
            intent_hits += intent == ex.intent
            language_hits += language == ex.language
            if intent != ex.intent or language != ex.language:
                misses.append((ex, intent, language))
    n = len(examples)
    return FoldScores(intent_hits / n, language_hits / n, tuple(misses))
