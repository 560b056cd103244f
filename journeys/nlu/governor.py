"""Conversation governor: business / casual / spam / abuse, and how many turns each gets.

Classification reads the message plus the intent result. The counting policy (SPEC
§5.2, per customer per tenant) is a pure function over `GovernorCounters`, which live in
the ConversationState, so the turn persists them with everything else:

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
import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.intent import IntentResult
from journeys.nlu.spam import SPAM_SCORE, spam_score
from journeys.nlu.text import fold, tokens
from journeys.state import ConversationState, GovernorClass

LEXICON_FILE = DATA_DIR / "governor_lexicon.json"
CASUAL_LIMITS = {0: 0, 1: 1, 2: 2, 3: 4}
SPAM_LIMIT = 2
# The cascade asks the LLM below this (journeys/nodes/governance.py has its own copy;
# this one lets Django-free tools such as bench/nlu_accuracy.py read it).
GOVERNOR_THRESHOLD = 0.70
CASUAL_MIN_CONFIDENCE = 0.5
# Swearing masked with symbols ("f***", "sh*t", "f#@k") is still swearing.
_MASKED = re.compile(r"\b[a-z]{1,3}[*#@$]{2,}[a-z]*|\b[a-z]{1,3}\*[a-z]{1,2}\b", re.IGNORECASE)
_URL = re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(?:com|ke|net|org|ly|me|io)/", re.IGNORECASE)

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


@cache
def _phrase_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Each phrase list as one alternation, so a message is scanned once per list."""
    lex = lexicon()
    abuse = "|".join(re.escape(p) for p in sorted(lex["abuse_phrases"]))
    spam = "|".join(re.escape(p) for p in sorted(lex["spam_phrases"]))
    # "you won't" is not "you won": a spam phrase must not run into an apostrophe.
    return re.compile(rf"\b(?:{abuse})\b"), re.compile(rf"\b(?:{spam})(?!')")


def _is_abusive(text: str) -> bool:
    words = tokens(text)
    return (
        bool(_MASKED.search(text))
        or bool(set(words) & lexicon()["abuse_words"])
        or bool(_phrase_patterns()[0].search(" ".join(words)))
    )


def _is_spam(text: str, intent: IntentResult) -> bool:
    if _phrase_patterns()[1].search(fold(text)):
        return True
    # Two scam cues in a message that is clearly a shop request ("do you deliver daily,
    # is it free?") are a customer; three, or two in small talk, are a scam.
    score = spam_score(text)
    confident_business = intent.intent not in ("spam_casual", "unknown") and (
        intent.confidence >= CASUAL_MIN_CONFIDENCE + 0.2
    )
    if score >= SPAM_SCORE + int(confident_business):
        return True
    # A link from a stranger with nothing else to say is the commonest bulk spam. Searched
    # in the raw text: folding shortens letter runs, which would turn "www." into "ww.".
    return bool(_URL.search(text)) and len(tokens(text)) <= 12


def classify_governor(text: str, intent: IntentResult) -> GovernorResult:
    if _is_abusive(text):
        return GovernorResult("abuse", 0.95, "abuse_lexicon")
    if _is_spam(text, intent):
        return GovernorResult("spam", 0.9, "spam_pattern")
    if intent.intent == "spam_casual" and intent.confidence >= CASUAL_MIN_CONFIDENCE:
        return GovernorResult("casual", intent.confidence, "intent_spam_casual")
    fallback = intent.confidence if intent.intent == "spam_casual" else 0.0
    casual_share = intent.scores.get("spam_casual", fallback)
    return GovernorResult("business", round(1.0 - casual_share, 3), "default")


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
