"""Consent commands (STOP, UNSUBSCRIBE, "acha", "sitaki"...), checked before anything else.

The rule, chosen to avoid false positives such as "can I stop by the shop tomorrow?":

1. Keyword commands count only when they are the whole message, after dropping
   punctuation, polite fillers ("please", "tafadhali", "bana", "msee") and the
   bot's-messages objects ("messages", "ujumbe"). "STOP", "stop pls", "Acha!",
   "sitaki tena" opt out; "stop by the shop" and "sitaki hii, nataka ile" do not.
2. Explicit opt-out phrases count anywhere in a longer message: a stop verb aimed at
   messaging ("stop sending me messages", "acha kunitumia", "usinitumie ujumbe",
   "unsubscribe me", "don't text me again").
3. While the bot waits for an answer to its own yes/no question (e.g. "shall I create
   the order?"), a bare "acha" / "sitaki" / "wacha" means "no", not "stop messaging
   me"; callers pass `awaiting_answer=True` then. STOP and UNSUBSCRIBE always count.
Matching is case- and accent-insensitive (text is folded first). Tenants may add their
own keywords (compliance.opt_out_keywords); those follow rule 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from journeys.nlu.text import fold, tokens

ConsentKind = Literal["opt_out", "opt_in"]

_OPT_OUT_WORDS = {
    "stop",
    "stopall",
    "unsubscribe",
    "unsub",
    "optout",
    "acha",
    "sitaki",
    "wacha",
    "niondoe",
}
_BARE_REFUSALS = {"acha", "sitaki", "wacha"}  # also plain "no" in Swahili
_OPT_OUT_BIGRAMS = {("opt", "out"), ("remove", "me"), ("sitaki", "tena"), ("acha", "tena")}
_OPT_IN_WORDS = {"start", "unstop", "subscribe", "optin"}
_OPT_IN_BIGRAMS = {("opt", "in"), ("anza", "tena")}
_FILLERS = {
    "please", "pls", "plz", "now", "tafadhali", "bana", "msee", "buda", "sasa", "jamani",
    "messages", "message", "msgs", "sms", "ujumbe", "texts", "it", "kabisa", "hizi", "zenu",
    "me", "all", "tena",
}  # fmt: skip

_PHRASES = re.compile(
    r"\b(?:stop|quit)\s+(?:sending|texting|messaging|spamming)\b"
    r"|\bstop\s+(?:all\s+)?(?:the\s+)?(?:messages|msgs|texts|sms|promotions|promos|notifications)\b"
    r"|\b(?:do\s*n[o']?t|never)\s+(?:text|message|sms|contact|send)\s+me\b"
    r"|\bunsubscribe\b|\bopt\s*out\b"
    r"|\b(?:acha|wacha|koma)\s+ku(?:ni)?(?:tumia|tuma|sumbua)\b"
    r"|\busi(?:ni)?tumie\b|\bmsini(?:tumie|tumia)\b"
    r"|\bsitaki\s+(?:messages|ujumbe|sms|meseji|msgs|promotions|matangazo)\b"
    r"|\bniondoe\s+(?:kwa|kwenye|kutoka)\b|\bremove\s+me(?:\s+from\b|$)",
)


@dataclass(frozen=True, slots=True)
class ConsentCommand:
    kind: ConsentKind
    rule: str


def _core_words(text: str) -> list[str]:
    return [word for word in tokens(text) if word not in _FILLERS]


def _whole_message_command(
    words: list[str], extra_keywords: Iterable[str]
) -> ConsentCommand | None:
    extras = {fold(word).strip() for word in extra_keywords}
    if len(words) == 1 and (words[0] in _OPT_OUT_WORDS or words[0] in extras):
        return ConsentCommand("opt_out", "keyword")
    if len(words) == 2 and tuple(words) in _OPT_OUT_BIGRAMS:
        return ConsentCommand("opt_out", "keyword")
    if " ".join(words) in extras and words:
        return ConsentCommand("opt_out", "tenant_keyword")
    if (len(words) == 1 and words[0] in _OPT_IN_WORDS) or tuple(words) in _OPT_IN_BIGRAMS:
        return ConsentCommand("opt_in", "keyword")
    return None


def detect_consent_command(
    text: str, extra_keywords: Iterable[str] = (), *, awaiting_answer: bool = False
) -> ConsentCommand | None:
    """The consent command this message carries, or None."""
    all_words = tokens(text)
    words = _core_words(text) or all_words[:1]
    if awaiting_answer and words and set(words) <= _BARE_REFUSALS:
        return None
    found = _whole_message_command(words, extra_keywords)
    if found is not None:
        return found
    # "tena" is a filler for opt-outs ("sitaki tena" = "sitaki"), but in "anza tena"
    # (start again) it is half of the command, so opt-ins are checked with it kept.
    kept = tuple(word for word in all_words if word not in _FILLERS or word == "tena")
    if kept in _OPT_IN_BIGRAMS:
        return ConsentCommand("opt_in", "keyword")
    if _PHRASES.search(" ".join(all_words)):
        return ConsentCommand("opt_out", "phrase")
    return None
