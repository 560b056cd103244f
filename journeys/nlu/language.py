"""Language detection (en / sw / sheng / mixed) and the SPEC §5.2 reply-language rule.

Detection votes word by word: a word in the Sheng list, or a Swahili verb prefix on an
English root ("ku-buy", "mna-deliver", "ni-call"), marks Sheng; English and Swahili
words come from hand lists plus the words of the training corpus. An unfamiliar word
votes by its shape: a new inflection of a known Swahili verb is Swahili, a word ending
in a consonant is English, other vowel-final words lean weakly Swahili. Place and brand
names vote for nothing. Conventions follow the nlu_eval labelling guide
(bench/nlu_eval/README.md): one Sheng marker (a listed slang word, a "ma-" plural on an
English noun, or a Swahili-affixed English verb such as "nili-pay") makes the message
Sheng; it is mixed only with at least two words of English and two of Swahili
(MIXED_MIN_WORDS); otherwise the larger side wins, a tie going to Swahili.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from journeys.nlu.corpus import DATA_DIR, Example, training_examples
from journeys.nlu.fragments import is_fragment
from journeys.nlu.text import fold, sw_stem, tokens
from journeys.state import Lang

LEXICON_FILE = DATA_DIR / "language_lexicon.json"
SWITCH_THRESHOLD = 0.75  # SPEC §5.2
# Mixed is code-switching with at least two words of each language (nlu_eval guide): one
# English noun in a Swahili sentence ("delivery ya Kisumu ni siku ngapi") stays Swahili.
# A word of unfamiliar shape votes 0.35, so one listed word and two guessed ones suffice.
MIXED_MIN_WORDS = 1.7
CONSONANT_FINAL_WEIGHT = 1.0
# A Swahili verb's prefix chain: negation, subject, tense, object ("ha-ja-ni-", "m-ta-",
# "ni-li-", "ku-"). A chain on an English root is a Sheng hybrid ("hajanicall").
_SW_PREFIX_CHAIN = re.compile(
    r"(?:ha|hu|si)?(?:ni|tu|wa|mu|m|u|a|i|zi|li|ki|vi|ya)?"
    r"(?:ja|na|li|ta|me|ki|nge|ka|ku)?(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji)?"
)
# Subject (or ku-) and tense before an unknown consonant-final root: "ime-fail", "ku-chat".
_SW_TENSED_ENGLISH = re.compile(
    r"^(?:(?:ha|hu|si)?(?:ni|tu|wa|mu|m|u|a|i|zi|li|ki|vi|ya)(?:ja|na|li|ta|me|nge)"
    r"(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji)?|ku)(?P<root>[a-z]{3,}[bcdfghjklmnprstvwxz])$"
)
# "nili-pay", "ku-order": a hyphen between a Swahili prefix chain and an English stem.
_HYPHENATED = re.compile(r"\b([a-z]{1,6})-([a-z]{3,})\b")
_SW_SHAPE = re.compile(r"^[^aeiou]*(?:[aeiou]+[bcdfghjklmnprstvwyz']{1,3})*[aeiou]+$")
# Spellings Swahili orthography does not use: a word with these is English-shaped.
_EN_SPELLING = re.compile(r"dg|ck|ph|ght|x|q|c(?!h)|oo|ea|ou")  # not "ee": "imeenda"


@dataclass(frozen=True, slots=True)
class Lexicon:
    en: frozenset[str]
    sw: frozenset[str]
    sheng: frozenset[str]
    neutral: frozenset[str] = frozenset()  # names: places, brands, networks
    sw_roots: frozenset[str] = frozenset()  # verb roots of the Swahili words ("lip", "nunu")


@dataclass(frozen=True, slots=True)
class LanguageResult:
    language: Lang
    confidence: float


@cache
def lexicon() -> Lexicon:
    return build_lexicon(training_examples())


def build_lexicon(examples: Iterable[Example]) -> Lexicon:
    """Hand lists extended by corpus words; cross-validation builds one per fold."""
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    seen: dict[str, set[str]] = {"en": set(), "sw": set()}
    for ex in examples:
        if ex.language in seen:
            seen[ex.language].update(tokens(ex.text))
    hand_en, hand_sw, sheng = set(raw["en"]), set(raw["sw"]), frozenset(raw["sheng"])
    # Corpus words extend the hand lists but never override them: an English loanword in
    # a Swahili example ("confirmation") must not become Swahili.
    en_only = seen["en"] - seen["sw"] - hand_sw
    sw_only = seen["sw"] - seen["en"] - hand_en
    en = frozenset(hand_en | en_only) - sheng
    sw = frozenset(hand_sw | sw_only) - sheng
    neutral = frozenset(raw["neutral"])
    sw = sw - neutral
    roots = frozenset(root for root in map(sw_stem, sw) if root is not None)
    return Lexicon(en=en - neutral, sw=sw, sheng=sheng, neutral=neutral, sw_roots=roots)


def _is_hybrid(word: str, lex: Lexicon) -> bool:
    """A Swahili verb prefix on an English root: "kubuy", "mnadeliver", "haijafit".

    Also the Sheng "ma-" plural on an English noun ("mashoes", "maphones"), and a root
    no word list knows when it ends in a consonant (Swahili words end in a vowel) behind a
    full subject-and-tense chain ("imefail", "haijaconfirm", "nimeorder").
    """
    if word in lex.sw or word in lex.en:
        return False
    if word.startswith("ma") and len(word) >= 5 and word[2:] in lex.en:
        return True
    # A one-letter prefix is too weak a sign: "i-phones", "a-mount".
    for cut in range(2, len(word) - 2):
        root = word[cut:]
        if (root in lex.en or root in lex.sheng) and _SW_PREFIX_CHAIN.fullmatch(word[:cut]):
            return True
    match = _SW_TENSED_ENGLISH.match(word)
    return match is not None and match.group("root") not in lex.sw


def word_votes(word: str, lex: Lexicon) -> tuple[str, float]:
    """Which language one word speaks for, and how strongly."""
    if not word.isalpha() or word in lex.neutral:
        return "none", 0.0
    if word in lex.sheng or _is_hybrid(word, lex):
        return "sheng", 1.0
    in_en, in_sw = word in lex.en, word in lex.sw
    if in_en != in_sw:
        return ("en" if in_en else "sw"), 1.0
    if in_en:
        return "none", 0.0
    if _SW_SHAPE.match(word) and not _EN_SPELLING.search(word):
        # A new inflection of a known verb ("mtanilipia" of "lipa") is surely Swahili.
        return "sw", 1.0 if sw_stem(word) in lex.sw_roots else 0.35
    # Swahili words end in a vowel; an unfamiliar word of three letters or more that
    # ends in a consonant ("budget", "charger") is English as surely as a listed one.
    return "en", CONSONANT_FINAL_WEIGHT if len(word) >= 3 and word[-1] not in "aeiou" else 0.35


def _tally(words: list[str], lex: Lexicon) -> tuple[defaultdict[str, float], Counter[str]]:
    weights: defaultdict[str, float] = defaultdict(float)
    strong: Counter[str] = Counter()
    for word in words:
        lang, weight = word_votes(word, lex)
        if lang != "none":
            weights[lang] += weight
            strong[lang] += weight >= 1.0
    return weights, strong


def detect_language(text: str) -> LanguageResult:
    return detect_with(lexicon(), text)


def _join_hyphenated(text: str) -> str:
    """ "nili-pay" -> "nilipay", "ma-offer" -> "maoffer": prefix and English stem are one word."""
    return _HYPHENATED.sub(
        lambda m: (
            m.group(1) + m.group(2)
            if m.group(1) == "ma" or _SW_PREFIX_CHAIN.fullmatch(m.group(1))
            else m.group(0)
        ),
        fold(text),
    )


def detect_with(lex: Lexicon, text: str) -> LanguageResult:
    words = tokens(_join_hyphenated(text))
    weights, strong = _tally(words, lex)
    if not weights:
        return LanguageResult(language="mixed", confidence=0.0)
    if strong["sheng"]:
        others = strong["en"] + strong["sw"]
        confidence = 0.76 + 0.08 * (strong["sheng"] - 1) + 0.02 * min(others, 4)
        return LanguageResult(language="sheng", confidence=round(min(confidence, 0.97), 3))
    base = weights["en"] + weights["sw"]
    en_share, sw_share = weights["en"] / base, weights["sw"] / base
    if min(weights["en"], weights["sw"]) >= MIXED_MIN_WORDS and strong["en"] and strong["sw"]:
        confidence = 0.6 + 0.1 * min(strong["en"] + strong["sw"], 4)
        return LanguageResult(language="mixed", confidence=round(min(confidence, 0.95), 3))
    # A tie ("hi habari", "payment yangu imeenda") is a Swahili frame with an English loan.
    top: Lang = "en" if en_share > sw_share else "sw"
    # A context-less reply ("ya kwanza", "the second one") is too thin to switch on.
    certainty = min(1.0, strong[top] / 2) * (0.5 if is_fragment(words) else 1.0)
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
