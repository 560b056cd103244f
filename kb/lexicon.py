"""Support-desk words in English, Kiswahili and Sheng that mean the same thing.

A lexical embedding relates "delivered" to "delivery" but not "tao" to "CBD" or
"kurudisha" to "return". Customers mix the three languages in one sentence, so a
question's words are widened with their equivalents before searching and when judging
how much of the question a passage covers. Shopping nouns (viatu, sukuma, …) live in
the shop words; these are the words of policies, delivery and payment ("support_words"
in tulia/words.json).
"""

from __future__ import annotations

from functools import cache

from tulia import words


@cache
def _equivalents() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in words.synonyms("support_words"):
        for word in group:
            table.setdefault(word, set()).update(w for w in group if w != word)
    return {word: frozenset(others) for word, others in table.items()}


def equivalents(word: str) -> frozenset[str]:
    return _equivalents().get(word, frozenset())
