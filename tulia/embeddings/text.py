"""Text normalisation shared by the embedders and full-text search."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+")


def normalise(text: str) -> str:
    """Lowercase, strip accents, keep letters and digits: 'Café-Nike 42' -> 'cafe nike 42'."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_WORD.findall(plain))


def words(text: str) -> list[str]:
    return normalise(text).split()
