"""Which words of a message are a product's name made of English words ("air max").

A Swahili customer names the item as the shop does: "nataka air max size 42" is a
Swahili request, and the two English words in it are a name, not code-switching. The
language markers (journeys/nlu/language.py `word_tally`) count the words of a listed
name (data/product_names.json) as evidence for no language, as they already do for
brand and place names. Only whole runs of a name's words match: "air" or "max" alone
still speaks English. A feature of the trained language head, never a decision.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.text import tokens

NAMES_FILE = DATA_DIR / "product_names.json"


@cache
def product_names() -> tuple[tuple[str, ...], ...]:
    """Each listed name as its folded words, longest first."""
    raw = json.loads(NAMES_FILE.read_text(encoding="utf-8"))
    names = {tuple(tokens(name)) for name in raw["names"]}
    return tuple(sorted((n for n in names if n), key=len, reverse=True))


def product_name_positions(words: Sequence[str]) -> frozenset[int]:
    """Positions of the words that belong to a listed product name."""
    found: set[int] = set()
    for name in product_names():
        size = len(name)
        for start in range(len(words) - size + 1):
            if tuple(words[start : start + size]) == name:
                found.update(range(start, start + size))
    return frozenset(found)
