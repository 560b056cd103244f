"""Language detection (en / sw / sheng / mixed) and the SPEC §5.2 reply-language rule.

Detection votes word by word: a word in the Sheng list, or a Swahili verb prefix on an
English root ("ku-buy", "mna-deliver", "ni-call"), marks Sheng; English and Swahili
words come from hand lists plus the words of the training corpus; an unfamiliar word
gets a weak vote from its shape (Swahili words end in a vowel). One clear Sheng marker
makes the message Sheng; English and Swahili both well represented make it mixed.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache

from journeys.nlu.corpus import DATA_DIR, training_examples
from journeys.nlu.text import tokens
from journeys.state import Lang

LEXICON_FILE = DATA_DIR / "language_lexicon.json"
SWITCH_THRESHOLD = 0.75  # SPEC §5.2
MIXED_MIN_SHARE = 0.2
_SW_PREFIXES = re.compile(
    r"^(?:ku|ni|na|nime|nili|nita|niki|ali|ame|ata|ana|ime|ina|ili|ita|iki|haija|hai|ha|"
    r"mna|mta|mme|tuna|tuta|una|uta|wana|ata|ani|mi|zi|a|m|u)"
)
_SW_SHAPE = re.compile(r"^[^aeiou]*(?:[aeiou]+[bcdfghjklmnprstvwyz']{1,3})*[aeiou]$")
# Spellings Swahili orthography does not use: a word with these is English-shaped.
_EN_SPELLING = re.compile(r"dg|ck|ph|ght|x|q|c(?!h)|oo|ee|ea|ou")


@dataclass(frozen=True, slots=True)
class Lexicon:
    en: frozenset[str]
    sw: frozenset[str]
    sheng: frozenset[str]


@dataclass(frozen=True, slots=True)
class LanguageResult:
    language: Lang
    confidence: float


@cache
def lexicon() -> Lexicon:
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    seen: dict[str, set[str]] = {"en": set(), "sw": set()}
    for ex in training_examples():
        if ex.language in seen:
            seen[ex.language].update(tokens(ex.text))
    hand_en, hand_sw, sheng = set(raw["en"]), set(raw["sw"]), frozenset(raw["sheng"])
    # Corpus words extend the hand lists but never override them: an English loanword in
    # a Swahili example ("confirmation") must not become Swahili.
    en_only = seen["en"] - seen["sw"] - hand_sw
    sw_only = seen["sw"] - seen["en"] - hand_en
    en = frozenset(hand_en | en_only) - sheng
    sw = frozenset(hand_sw | sw_only) - sheng
    return Lexicon(en=en, sw=sw, sheng=sheng)


def _is_hybrid(word: str, lex: Lexicon) -> bool:
    """A Swahili verb prefix on an English root: "kubuy", "mnadeliver", "haijafit"."""
    if word in lex.sw or word in lex.en:
        return False
    for match in _SW_PREFIXES.finditer(word):
        root = word[match.end() :]
        if len(root) >= 3 and (root in lex.en or root in lex.sheng):
            return True
    return False


def word_votes(word: str, lex: Lexicon) -> tuple[str, float]:
    """Which language one word speaks for, and how strongly."""
    if word.isdigit():
        return "none", 0.0
    if word in lex.sheng or _is_hybrid(word, lex):
        return "sheng", 1.0
    in_en, in_sw = word in lex.en, word in lex.sw
    if in_en != in_sw:
        return ("en" if in_en else "sw"), 1.0
    if in_en:
        return "none", 0.0
    swahili_shaped = _SW_SHAPE.match(word) and not _EN_SPELLING.search(word)
    return ("sw" if swahili_shaped else "en"), 0.35


def _tally(words: list[str]) -> tuple[defaultdict[str, float], Counter[str]]:
    lex = lexicon()
    weights: defaultdict[str, float] = defaultdict(float)
    strong: Counter[str] = Counter()
    for word in words:
        lang, weight = word_votes(word, lex)
        if lang != "none":
            weights[lang] += weight
            strong[lang] += weight >= 1.0
    return weights, strong


def detect_language(text: str) -> LanguageResult:
    weights, strong = _tally(tokens(text))
    if not weights:
        return LanguageResult(language="mixed", confidence=0.0)
    if strong["sheng"]:
        others = strong["en"] + strong["sw"]
        confidence = 0.76 + 0.08 * (strong["sheng"] - 1) + 0.02 * min(others, 4)
        return LanguageResult(language="sheng", confidence=round(min(confidence, 0.97), 3))
    base = weights["en"] + weights["sw"]
    en_share, sw_share = weights["en"] / base, weights["sw"] / base
    if min(en_share, sw_share) >= MIXED_MIN_SHARE and strong["en"] and strong["sw"]:
        confidence = 0.6 + 0.1 * min(strong["en"] + strong["sw"], 4)
        return LanguageResult(language="mixed", confidence=round(min(confidence, 0.95), 3))
    top: Lang = "en" if en_share >= sw_share else "sw"
    certainty = min(1.0, strong[top] / 2)
    confidence = 0.45 + 0.5 * max(en_share, sw_share) * certainty
    return LanguageResult(language=top, confidence=round(confidence, 3))


@dataclass(frozen=True, slots=True)
class LanguageDecision:
    language: Lang
    reason: str  # "detected" | "customer_preference" | "tenant_default"


def choose_response_language(
    detected: LanguageResult,
    *,
    allowed: list[str],
    customer_pref: Lang | None,
    tenant_default: Lang,
) -> LanguageDecision:
    """SPEC §5.2: switch only on a confident, allowed detection; else preference, else default.

    "mixed" is never a tenant language, so a mixed message is answered in the customer's
    saved language or the tenant default.
    """
    if detected.confidence >= SWITCH_THRESHOLD and detected.language in allowed:
        return LanguageDecision(detected.language, "detected")
    if customer_pref is not None and customer_pref in allowed:
        return LanguageDecision(customer_pref, "customer_preference")
    return LanguageDecision(tenant_default, "tenant_default")
