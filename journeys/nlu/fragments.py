"""Context-less fragments: "the second one", "ile ya jana", "number 3".

Such a message is a reply that only makes sense after the bot's previous message; the
intent classifier cannot place it (the nlu_eval guide labels it unknown) and the
unknown handler asks what the customer means. Like small talk, fragments are a closed
vocabulary (pointer words, ordinals, colours, numbers), so a word list settles them.
"""

from __future__ import annotations

import json
from functools import cache

from journeys.nlu.corpus import DATA_DIR

LEXICON_FILE = DATA_DIR / "fragments.json"
MAX_WORDS = 5


@cache
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    pointers = frozenset(raw["pointers"])
    return pointers, pointers | frozenset(raw["companions"])


def is_fragment(words: list[str]) -> bool:
    """True when every word is a pointer or companion and at least one is a pointer."""
    pointers, allowed = _lexicon()
    if not 0 < len(words) <= MAX_WORDS:
        return False
    if not all(word in allowed or word.isdigit() for word in words):
        return False
    return any(word in pointers for word in words)
