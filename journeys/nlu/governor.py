"""Conversation governor: business / casual / spam / abuse, and how many turns each gets.

Classification is the trained governor head (journeys/nlu/model.py), calibrated. The
counting policy (SPEC §5.2, per customer per tenant) is a pure function over
`GovernorCounters`, which live in the ConversationState, so the turn persists them with
everything else:

- business: proceeds.
- casual: allowed turns by chattiness level (0: none, 1: one short greeting, 2: two,
  3: four); after that each casual message gets a redirect to business.
- spam: two replies (a polite redirect), then silence.
- abuse: silence from the first message (no reply at all).
Business messages never reset the counters: alternating would otherwise buy unlimited
small talk. Whoever starts a fresh conversation decides whether counters start at 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.intent import FRAGMENT_CONFIDENCE, IntentResult, is_bare_number
from journeys.nlu.text import tokens
from journeys.nlu.verdict import verdict
from journeys.state import ConversationState, GovernorClass

LEXICON_FILE = DATA_DIR / "governor_lexicon.json"
CASUAL_LIMITS = {0: 0, 1: 1, 2: 2, 3: 4}
SPAM_LIMIT = 2

Action = Literal["proceed", "casual_reply", "redirect", "spam_reply", "disengage", "stop"]


@dataclass(frozen=True, slots=True)
class GovernorResult:
    classification: GovernorClass
    confidence: float
    reason: str


@dataclass(frozen=True, slots=True)
class GovernorCounters:
    casual_turns: int = 0
    spam_turns: int = 0
    abuse_turns: int = 0

    @classmethod
    def from_state(cls, state: ConversationState) -> GovernorCounters:
        return cls(
            casual_turns=state.get("casual_turns", 0),
            spam_turns=state.get("spam_turns", 0),
            abuse_turns=state.get("abuse_turns", 0),
        )


@dataclass(frozen=True, slots=True)
class GovernorDecision:
    action: Action
    counters: GovernorCounters

    @property
    def replies(self) -> bool:
        return self.action not in ("disengage", "stop")


@cache
def lexicon() -> dict[str, frozenset[str]]:
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    return {key: frozenset(values) for key, values in raw.items() if not key.startswith("_")}


def classify_governor(text: str, intent: IntentResult) -> GovernorResult:
    """The trained governor head (insult and scam cues are among its features).

    `intent` is kept in the signature the governance node uses; the model reads the
    text itself.
    """
    words = tokens(text)
    if not words:
        return GovernorResult("business", 0.0, "empty")
    if is_bare_number(words):
        # The answer to a numbered list ("41", "2"): fixed meaning, no model asked.
        return GovernorResult("business", FRAGMENT_CONFIDENCE, "bare_number")
    found = verdict(text)["governor"]
    return GovernorResult(found.label, round(found.confidence, 3), "model")  # type: ignore[arg-type]


def intent_given_governor(intent: str, classification: GovernorClass) -> str:
    """A scam is spam_casual whatever it asks for.

    "I'd like to order 200 units, send your bank login" reads as a sale to the intent
    classifier; once the governor has recognised the scam, the turn's intent says so too
    (the nlu_eval guide files unsolicited promotions and scams under spam_casual).
    """
    return "spam_casual" if classification == "spam" else intent


def govern(
    classification: GovernorClass, counters: GovernorCounters, chattiness_level: int
) -> GovernorDecision:
    """The action for this turn and the counters to persist (pure)."""
    if classification == "abuse":
        return GovernorDecision("stop", replace(counters, abuse_turns=counters.abuse_turns + 1))
    if classification == "spam":
        spam_turns = counters.spam_turns + 1
        action: Action = "spam_reply" if spam_turns <= SPAM_LIMIT else "disengage"
        return GovernorDecision(action, replace(counters, spam_turns=spam_turns))
    if classification == "casual":
        casual_turns = counters.casual_turns + 1
        limit = CASUAL_LIMITS[max(0, min(3, chattiness_level))]
        action = "casual_reply" if casual_turns <= limit else "redirect"
        return GovernorDecision(action, replace(counters, casual_turns=casual_turns))
    return GovernorDecision("proceed", counters)
