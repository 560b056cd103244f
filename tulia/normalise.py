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


def printable(text: str) -> str:
    """Drop control characters (NUL cannot be stored in PostgreSQL text or jsonb)."""
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
