"""The one text normaliser outside the classifiers (journeys/nlu has its own, behind
its interface): folding for matching and search, and dropping unprintable characters.

Customers type "AGENT!", "Ajénti", "nataka  kuongea na mtu." on phones with autocorrect;
folding case, accents and punctuation before a whole-word match keeps triggers working
without matching inside other words ("agentur" must not fire "agent"). The catalog's
search text and the offline embedder fold the same way, so "Café-Nike 42" finds
"cafe nike 42".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_NON_WORD = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """Lower-case, accent-free, punctuation-free text with single spaces."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NON_WORD.sub(" ", bare).strip()


def words(text: str) -> list[str]:
    """The folded words: 'Café-Nike 42' -> ['cafe', 'nike', '42']."""
    return fold(text).split()


def find_phrase(text: str, phrases: Iterable[str]) -> str | None:
    """The first phrase (as configured) that occurs as whole words in `text`."""
    padded = f" {fold(text)} "
    for phrase in phrases:
        folded = fold(phrase)
        if folded and f" {folded} " in padded:
            return phrase
    return None


# Bidirectional overrides can make a message display differently from what it says.
_BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def visible(text: str, *, keep_format: bool = False) -> str:
    """NFC text without control, surrogate and private-use characters, nor bidi overrides.

    Other format characters (zero-width joiners, Cf) are dropped too unless `keep_format`:
    the gateway keeps them (emoji sequences use ZWJ) for what staff read, while the
    engine drops them, since a zero-width character inside a word hides it from matching.
    """
    kept = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in "\n\t":
            kept.append(ch)
            continue
        category = unicodedata.category(ch)
        if ch in _BIDI_CONTROLS or category in ("Cc", "Cs", "Co"):
            continue
        if category == "Cf" and not keep_format:
            continue
        kept.append(ch)
    return "".join(kept)


def printable(text: str) -> str:
    """Drop control characters (NUL cannot be stored in PostgreSQL text or jsonb)."""
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
