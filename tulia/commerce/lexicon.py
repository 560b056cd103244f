"""Swahili and Sheng shopping words, mapped to English and back, for query expansion.

Subword embeddings catch typos but not translation; this small hand-made list (data:
"shop_words" in tulia/words.json, every pair also works in reverse) is what lets
"viatu nyeusi" find "black shoes" and "sukuma" find "kale".
"""

from __future__ import annotations

from functools import cache

from tulia import words as words_data
from tulia.normalise import words


@cache
def _lexicon() -> dict[str, frozenset[str]]:
    both: dict[str, set[str]] = {}
    for word, equivalents in words_data.equivalents("shop_words").items():
        for other in equivalents:
            both.setdefault(word, set()).add(other)
            both.setdefault(other, set()).add(word)
    return {word: frozenset(others) for word, others in both.items()}


def is_product_word(word: str) -> bool:
    """A word the shop lexicon knows as naming a kind of product ("raba", "sneakers")."""
    return word in _lexicon()


# Joining words that carry no product meaning ("viatu vya kukimbia", "raba za vans").
STOP_WORDS = words_data.word_set("search_filler")


def expand_groups(text: str) -> list[list[str]]:
    """One group per meaningful query word: the word followed by its equivalents."""
    groups = []
    for word in dict.fromkeys(words(text)):
        if word not in STOP_WORDS:
            groups.append([word, *sorted(_lexicon().get(word, ()))])
    return groups


def expand(text: str) -> list[str]:
    """The query's words followed by their equivalents, without duplicates."""
    original = words(text)
    expanded = list(dict.fromkeys(original))
    for word in original:
        for other in sorted(_lexicon().get(word, ())):
            if other not in expanded:
                expanded.append(other)
    return expanded
