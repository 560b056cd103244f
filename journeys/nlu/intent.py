"""Intent classification: the trained, calibrated intent head (journeys/nlu/model.py).

Fixed meanings stay deterministic: a bare number or two ("2", "moja", "three") is the
answer to a numbered list the message does not carry, so it is `unknown` to the
classifier (the flow that asked the question reads it); a message with no word at all
("", "🙂🙂") is `unknown` with no confidence. Everything else is the model's verdict, its
confidence calibrated on text from a source the model was not trained on, so SPEC
§5.2's 0.70 / 0.50 bands act on the chance that the answer is right. Consent commands
(STOP, START) are settled before this runs (journeys/nlu/consent.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from journeys.nlu.fragments import NUMBER_WORDS
from journeys.nlu.text import tokens
from journeys.nlu.verdict import verdict
from journeys.state import Intent

# A bare number after a numbered list: surely a reply that needs its context.
FRAGMENT_CONFIDENCE = 0.85


@dataclass(frozen=True, slots=True)
class IntentResult:
    intent: Intent
    confidence: float
    scores: dict[str, float]


def is_bare_number(words: list[str]) -> bool:
    return 0 < len(words) <= 2 and all(w.isdigit() or w in NUMBER_WORDS for w in words)


def classify_intent(text: str) -> IntentResult:
    words = tokens(text)
    if not words:
        return IntentResult(intent="unknown", confidence=0.0, scores={})
    if is_bare_number(words):
        share = FRAGMENT_CONFIDENCE
        return IntentResult(intent="unknown", confidence=share, scores={"unknown": share})
    found = verdict(text)["intent"]
    return IntentResult(
        intent=found.label,  # type: ignore[arg-type]
        confidence=round(found.confidence, 3),
        scores=found.probabilities,
    )
