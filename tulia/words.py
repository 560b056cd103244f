"""The customer words the conversation listens for, loaded from `tulia/words.json`.

The file holds every word list outside the classifiers (journeys/nlu keeps its own) with
English, Swahili and Sheng side by side, so adding a phrase is a data change and a
reviewer sees all three languages in one place. Three shapes:

- a phrase list: {"en": [...], "sw": [...], "sheng": [...]} ("yes", "pickup", "damage");
- a grouped list: a name (payment method, topic, language) mapped to a phrase list;
- a number list ("ordinals"): each language's words mapped to the number they mean;
- an equivalents list ("shop_words"): each language's words mapped to the English
  words that mean the same, for widening a search;
- a synonym list ("support_words"): groups of words in any of the languages that all
  mean the same, since customers mix the three in one sentence.

Phrases are stored folded (tulia.normalise.fold) because matching folds the message
the same way; tests/test_words.py checks that, and that no list repeats a phrase.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias

WORDS_FILE = Path(__file__).with_name("words.json")
LANGUAGES = ("en", "sw", "sheng")

ByLanguage: TypeAlias = dict[str, tuple[str, ...]]


@cache
def _lists() -> dict[str, Any]:
    loaded = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{WORDS_FILE}: expected an object of named lists")
    return loaded


def names() -> tuple[str, ...]:
    return tuple(_lists())


def _by_language(raw: Any, where: str) -> ByLanguage:
    if not isinstance(raw, dict) or not raw or set(raw) - set(LANGUAGES):
        raise ValueError(f"{WORDS_FILE} {where}: expected lists under {LANGUAGES}")
    for phrases in raw.values():
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise ValueError(f"{WORDS_FILE} {where}: a language's phrases must be strings")
    return {lang: tuple(raw[lang]) for lang in LANGUAGES if lang in raw}


@cache
def by_language(name: str) -> ByLanguage:
    """A phrase list as written: {"en": (...), "sw": (...), "sheng": (...)}."""
    return _by_language(_lists()[name], name)


@cache
def phrases(name: str) -> tuple[str, ...]:
    """A phrase list's phrases in all three languages (English, Swahili, then Sheng)."""
    return tuple(p for found in by_language(name).values() for p in found)


@cache
def word_set(name: str) -> frozenset[str]:
    """A list of single words as a set, for membership tests word by word."""
    return frozenset(phrases(name))


@cache
def grouped(name: str) -> dict[str, tuple[str, ...]]:
    """A grouped list: each name's phrases in all three languages, in file order."""
    raw = _lists()[name]
    if not isinstance(raw, dict):
        raise ValueError(f"{WORDS_FILE} {name}: expected named phrase lists")
    return {
        key: tuple(p for found in _by_language(group, f"{name}.{key}").values() for p in found)
        for key, group in raw.items()
    }


@cache
def numbers(name: str) -> dict[str, int]:
    """A number list: every language's words mapped to the number they mean."""
    raw = _lists()[name]
    if not isinstance(raw, dict) or set(raw) - set(LANGUAGES):
        raise ValueError(f"{WORDS_FILE} {name}: expected word-to-number maps per language")
    found: dict[str, int] = {}
    for lang in LANGUAGES:
        for word, number in raw.get(lang, {}).items():
            if not isinstance(number, int):
                raise ValueError(f"{WORDS_FILE} {name}.{lang}.{word}: expected a number")
            found[word] = number
    return found


@cache
def equivalents(name: str) -> dict[str, tuple[str, ...]]:
    """An equivalents list: every language's words mapped to their English equivalents."""
    raw = _lists()[name]
    if not isinstance(raw, dict) or set(raw) - set(LANGUAGES):
        raise ValueError(f"{WORDS_FILE} {name}: expected word-to-words maps per language")
    found: dict[str, tuple[str, ...]] = {}
    for lang in LANGUAGES:
        for word, others in raw.get(lang, {}).items():
            if not isinstance(others, list) or not all(isinstance(o, str) for o in others):
                raise ValueError(f"{WORDS_FILE} {name}.{lang}.{word}: expected a list of words")
            found[word] = tuple(others)
    return found


@cache
def synonyms(name: str) -> tuple[tuple[str, ...], ...]:
    """A synonym list: groups of words (any language) that mean the same thing."""
    raw = _lists()[name]
    if not isinstance(raw, list) or not all(
        isinstance(group, list) and len(group) > 1 and all(isinstance(w, str) for w in group)
        for group in raw
    ):
        raise ValueError(f"{WORDS_FILE} {name}: expected groups of two or more words")
    return tuple(tuple(group) for group in raw)
