"""Deterministic intent classifier: naive Bayes on our corpus, nudged by strong cue words.

Confidence is tuned for the SPEC §5.2 thresholds: clear messages land ≥ 0.70 (route),
ambiguous ones 0.50-0.70 (clarify), and messages made mostly of words the corpus never
saw fall below 0.50 (unknown handler). A message with no known word at all is "unknown".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from journeys.nlu.corpus import DATA_DIR, training_examples
from journeys.nlu.naive_bayes import NaiveBayes, train
from journeys.nlu.text import tokens
from journeys.state import Intent

CUES_FILE = DATA_DIR / "intent_cues.json"
SHARPNESS = 1.0  # chosen so wrong answers rarely clear the 0.70 routing bar
MIN_COVERAGE = 0.34  # fewer known words than this: we do not understand the message


@dataclass(frozen=True, slots=True)
class IntentResult:
    intent: Intent
    confidence: float
    scores: dict[str, float]


@cache
def _model() -> NaiveBayes:
    return train(((ex.text, ex.intent) for ex in training_examples()), sharpness=SHARPNESS)


@cache
def _cues() -> tuple[float, dict[str, tuple[str, ...]]]:
    raw = json.loads(CUES_FILE.read_text(encoding="utf-8"))
    return float(raw["weight"]), {k: tuple(v) for k, v in raw["cues"].items()}


def _matches(word: str, cue: str) -> bool:
    """Whole word for short cues, prefix for four letters, inside the word beyond that."""
    if len(cue) <= 3:
        return word == cue
    return word.startswith(cue) if len(cue) == 4 else cue in word


def _cue_hits(words: list[str]) -> dict[str, int]:
    _, cues = _cues()
    return {
        intent: sum(any(_matches(w, c) for c in prefixes) for w in words)
        for intent, prefixes in cues.items()
    }


@cache
def _every_cue() -> tuple[str, ...]:
    _, cues = _cues()
    return tuple(c for prefixes in cues.values() for c in prefixes)


def _coverage(model: NaiveBayes, words: list[str]) -> float:
    """Share of words the corpus or the cue list knows."""
    if not words:
        return 0.0
    every_cue = _every_cue()
    known = sum(
        f"w:{w}" in model.vocabulary or any(_matches(w, c) for c in every_cue) for w in words
    )
    return known / len(words)


def _combine(nb: dict[str, float], hits: dict[str, int]) -> dict[str, float]:
    weight, _ = _cues()
    logits = {k: math.log(max(p, 1e-12)) + weight * hits.get(k, 0) for k, p in nb.items()}
    top = max(logits.values())
    exps = {k: math.exp(v - top) for k, v in logits.items()}
    total = sum(exps.values())
    return {k: v / total for k, v in exps.items()}


def classify_intent(text: str) -> IntentResult:
    model, words = _model(), tokens(text)
    coverage = _coverage(model, words)
    if coverage < MIN_COVERAGE:
        return IntentResult(intent="unknown", confidence=round(1 - coverage, 3), scores={})
    scores = _combine(model.scores(text), _cue_hits(words))
    best = max(scores, key=scores.__getitem__)
    # Damp confidence when part of the message is unfamiliar: the part we don't
    # understand may change its meaning.
    confidence = scores[best] * (0.55 + 0.45 * coverage)
    return IntentResult(intent=best, confidence=round(confidence, 3), scores=scores)  # type: ignore[arg-type]
