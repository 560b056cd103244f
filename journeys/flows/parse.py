"""Reading a customer's answer to the question the bot just asked.

Pure functions over the (already sanitised) text. An answer that cannot be read
returns None, and the caller then treats the message as a new request instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from journeys.flows import lexicon
from journeys.nlu.small_talk import is_small_talk
from journeys.nlu.text import tokens as nlu_tokens
from journeys.state import CatalogFilters
from tulia.commerce.lexicon import STOP_WORDS, is_product_word
from tulia.normalise import find_phrase, fold

MAX_QUANTITY = 99
MAX_NOD_WORDS = 6  # "ok thanks so much msee": longer messages usually ask something
_NUMBER = re.compile(r"\b(\d{1,3})\b")
_REFERENCE = re.compile(r"\b([A-Za-z]{2,3}-[A-Za-z0-9]{4,8})\b")
_MONEY = r"(\d[\d,]*(?:\.\d+)?)\s*(k)?"
_MAX_PRICE = re.compile(
    rf"\b(under|below|less than|max|chini ya|budget|si zaidi ya)\s*(ksh|kes|sh)?\.?\s*{_MONEY}",
    re.I,
)
_MIN_PRICE = re.compile(
    rf"\b(?:over|above|more than|zaidi ya|kuanzia)\s*(?:ksh|kes|sh)?\.?\s*{_MONEY}", re.I
)
_SIZE = re.compile(r"\b(?:size|saizi|number|namba)\s*(\d{1,2})\b", re.I)
_CODE = re.compile(r"\b([A-Z][A-Z0-9]{3,19})\b")
# A Kenyan mobile number as people type it: 0712 345 678, 0112345678, +254 712 345678.
_KENYAN_MOBILE = re.compile(r"(?<![\d+])(?:\+?254[\s-]?|0)([17](?:[\s-]?\d){8})(?!\d)")
_COMMON_CAPS = "YES NDIO STOP PAY LIPA CONTINUE ENDELEA SAWA START NONE MPESA PESAPAL HAPANA OKAY"
_NOT_CODES = frozenset(_COMMON_CAPS.split())


def words(text: str) -> list[str]:
    return fold(text).split()


def has(text: str, phrases: Sequence[str]) -> bool:
    return find_phrase(text, phrases) is not None


def short_answer(text: str, phrases: Sequence[str], max_words: int = 4) -> bool:
    """A brief reply made of one of the phrases ("yes", "ndio sawa"), not a long message."""
    return len(words(text)) <= max_words and has(text, phrases)


def is_yes(text: str) -> bool:
    return short_answer(text, lexicon.YES) and not short_answer(text, lexicon.NO)


def is_no(text: str) -> bool:
    return short_answer(text, lexicon.NO)


def acknowledges(text: str) -> bool:
    """ "ok", "sawa", "poa", "asante", "thanks bro": a nod or a pleasantry, asking nothing.

    The classifier has no intent for these, so they land in "unknown" although nothing
    was misunderstood. The small-talk vocabulary covers greetings and thanks; the plain
    nods ("ok", "sawa", "noted") are ours.
    """
    said = nlu_tokens(text)
    if is_small_talk(said):
        return True
    return 0 < len(said) <= MAX_NOD_WORDS and set(said) <= lexicon.ACKNOWLEDGE


def number_choice(text: str, count: int) -> int | None:
    """1-based choice from "2", "number 2", "ya pili", "the second one"."""
    folded = words(text)
    if len(folded) > 5:
        return None
    digits = [int(n) for n in _NUMBER.findall(text)]
    named = [lexicon.ORDINALS[w] for w in folded if w in lexicon.ORDINALS]
    for candidate in digits or named:
        if 1 <= candidate <= count:
            return candidate
    return None


def name_choice(text: str, names: Sequence[str]) -> int | None:
    """1-based index of the only option sharing the most distinctive words with the text."""
    said = set(words(text)) - lexicon.FILLER
    if not said:
        return None
    overlaps = [len(said & set(words(name))) for name in names]
    best = max(overlaps, default=0)
    if best == 0 or overlaps.count(best) > 1:
        return None
    return overlaps.index(best) + 1


def quantity(text: str) -> int | None:
    without_size = _SIZE.sub(" ", text)
    digits = [int(n) for n in _NUMBER.findall(without_size)]
    if digits:
        return digits[0]
    for word in words(without_size):
        if word in lexicon.ORDINALS:
            return lexicon.ORDINALS[word]
    return None


def method_choice(text: str, methods: Sequence[str]) -> str | None:
    picked = number_choice(text, len(methods))
    if picked is not None:
        return methods[picked - 1]
    for method, cues in lexicon.METHOD_WORDS.items():
        if method in methods and has(text, cues):
            return method
    if has(text, lexicon.METHOD_WORDS["mpesa_stk"]) and "mpesa_c2b" in methods:
        return "mpesa_c2b"
    return None


def order_reference(text: str) -> str | None:
    found = _REFERENCE.search(text)
    return found.group(1).upper() if found else None


def coupon_code(text: str) -> str | None:
    """A code after "code"/"kuponi", or a capitalised token like KICKS10."""
    tokens = text.split()
    for i, token in enumerate(tokens[:-1]):
        if fold(token) in lexicon.COUPON_CUES:
            candidate = re.sub(r"[^A-Za-z0-9]", "", tokens[i + 1])
            if len(candidate) >= 3:
                return candidate.upper()
    for candidate in _CODE.findall(text):
        if candidate not in _NOT_CODES and not _REFERENCE.search(candidate):
            return candidate
    return None


def _amount(number: str, thousands: str | None) -> str:
    value = float(number.replace(",", ""))
    return str(int(value * 1000) if thousands else int(value))


@dataclass(frozen=True, slots=True)
class Wanted:
    """What to search for: the product words and the structured filters."""

    query: str
    filters: CatalogFilters = field(default_factory=CatalogFilters)
    size: str | None = None

    @property
    def empty(self) -> bool:
        return not self.query and not self.filters


def wanted(text: str) -> Wanted:
    filters: CatalogFilters = {}
    cap = next((m for m in _MAX_PRICE.finditer(text) if not _names_a_model(text, m)), None)
    if cap is not None:
        filters["max_price"] = _amount(cap.group(3), cap.group(4))
    if found := _MIN_PRICE.search(text):
        filters["min_price"] = _amount(found.group(1), found.group(2))
    size = _SIZE.search(text)
    capless = f"{text[: cap.start()]} {text[cap.end() :]}" if cap is not None else text
    stripped = _SIZE.sub(" ", _MIN_PRICE.sub(" ", capless))
    said = [w for w in words(stripped) if w not in lexicon.FILLER]
    content = [w for i, w in enumerate(said) if not w.isdigit() or _names_model(said, i)]
    return Wanted(search_words(content), filters, size.group(1) if size else None)


def _names_a_model(text: str, cap: re.Match[str]) -> bool:
    """ "max" right after a name word (a brand or model word, not a kind of product),
    with no currency or "k", is part of the product's name: "air max 95", "Air Max 270".
    "max 3000", "sneakers max 3000" and "max kes 3k" stay price caps."""
    if cap.group(1).lower() != "max" or cap.group(2) or cap.group(4):
        return False
    before = words(text[: cap.start()])
    if not before or before[-1] in lexicon.FILLER or before[-1].isdigit():
        return False
    return not is_product_word(before[-1])


def _names_model(said: list[str], i: int) -> bool:
    """A number right after a product word is its model ("jordan 1", "air max 90"); one
    before the words, or alone, is a quantity ("2 sukuma", "nipe 3")."""
    return i > 0 and not said[i - 1].isdigit()


MAX_QUERY_CHARS = 120
MIN_QUERY_WORD = 2


def search_words(content: list[str]) -> str:
    """A long message reduced to the words a search can use: each once, joining words
    gone, within MAX_QUERY_CHARS. A 5,000-character story still searches (the catalog
    tool refuses queries over 200 characters, and that refusal is no outage)."""
    usable = [w for w in dict.fromkeys(content) if w not in STOP_WORDS and _usable(w)]
    if len(" ".join(usable)) <= MAX_QUERY_CHARS:
        return " ".join(usable)
    # Too long: the words the shop lexicon knows as products first, then the rest.
    ranked = sorted(usable, key=lambda word: not is_product_word(word))
    kept: list[str] = []
    for word in ranked:
        if len(" ".join([*kept, word])) > MAX_QUERY_CHARS:
            break
        kept.append(word)
    return " ".join(w for w in usable if w in kept)  # in the customer's order


def _usable(word: str) -> bool:
    """Long enough to search by; a model number ("1" in "jordan 1") always is."""
    return len(word) >= MIN_QUERY_WORD or word.isdigit()


def is_vague(want: Wanted) -> bool:
    """One product word and no filters ("shoes", "viatu"): too broad for six options."""
    return not want.filters and len(want.query.split()) <= 1


def requested_language(text: str) -> str | None:
    for language, names in lexicon.LANGUAGES.items():
        if has(text, names):
            return language
    return None


def switch_wanted(text: str) -> bool | None:
    """True to turn something on, False to turn it off, None when unclear."""
    if has(text, lexicon.TURN_OFF):
        return False
    if has(text, lexicon.TURN_ON):
        return True
    return None


def mobile_number(text: str) -> str | None:
    """The Kenyan mobile number in the message, as +2547XXXXXXXX, or None."""
    found = _KENYAN_MOBILE.search(text)
    if found is None:
        return None
    return "+254" + re.sub(r"\D", "", found.group(1))
