"""Text folding and tokenising shared by every deterministic classifier.

Customers type on phones: mixed case, curly apostrophes, accents from autocorrect and
stretched words ("pleeease", "sasaaa"). Folding all of that to one plain form lets the
lexicons stay small.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STRETCH = re.compile(r"(.)\1{2,}")


def fold(text: str) -> str:
    """Lower-case, accent-free, with curly quotes made straight and stretches shortened."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = plain.replace("\u2019", "'").replace("\u2018", "'").casefold()
    return _STRETCH.sub(r"\1\1", plain)


def tokens(text: str) -> list[str]:
    """Word tokens of the folded text (digits kept: sizes and prices matter)."""
    return _TOKEN.findall(fold(text))


def char_ngrams(word: str, sizes: tuple[int, ...] = (3, 4)) -> list[str]:
    """Character n-grams of a word padded with boundary marks, for unseen spellings."""
    padded = f"<{word}>"
    return [padded[i : i + n] for n in sizes for i in range(len(padded) - n + 1)]
