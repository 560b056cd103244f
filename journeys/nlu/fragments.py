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


# A bare count or choice ("2", "moja", "three") answers a question the message doesn't carry.
_SWAHILI_NUMBERS = ("moja", "mbili", "tatu", "nne", "tano", "sita", "saba", "nane", "tisa", "kumi")
_ENGLISH_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBER_WORDS = frozenset((*_SWAHILI_NUMBERS, *_ENGLISH_NUMBERS))


def is_fragment(words: list[str]) -> bool:
    """A bare number or two, or only pointers and companions with at least one pointer."""
    pointers, allowed = _lexicon()
    if not 0 < len(words) <= MAX_WORDS:
        return False
    if len(words) <= 2 and all(word.isdigit() or word in NUMBER_WORDS for word in words):
        return True
    if not all(word in allowed or word.isdigit() for word in words):
        return False
    return any(word in pointers for word in words)
