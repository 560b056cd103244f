"""The text catalog: every key in en/sw/sheng, the same facts in each, and real translations."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tulia.text import LANGUAGES, ReplyKey, catalog, entry, label, say

PLACEHOLDER = re.compile(r"{(\w+)}")
WORD = re.compile(r"[^\W\d_]+")


def _keys(language: str) -> set[str]:
    return {f"{section}.{name}" for section, names in catalog(language).items() for name in names}


def _texts(found: Any) -> Iterator[str]:
    if isinstance(found, str):
        yield found
    elif isinstance(found, list):
        yield from found
    else:
        yield from found.values()


def _shape(found: Any) -> object:
    """What must match across languages: the kind of entry, a table's names, and the set
    of placeholder sets its phrasings use."""
    kind = type(found).__name__
    if isinstance(found, dict):
        return kind, frozenset(found)
    return kind, frozenset(frozenset(PLACEHOLDER.findall(text)) for text in _texts(found))


def _words(text: str) -> tuple[str, ...]:
    return tuple(WORD.findall(PLACEHOLDER.sub(" ", text).casefold()))


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_every_key_exists_in_every_language(language: str) -> None:
    assert _keys(language) == _keys("en")


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_every_key_takes_the_same_facts_in_every_language(language: str) -> None:
    for key in sorted(_keys("en")):
        assert _shape(entry(key, language)) == _shape(entry(key, "en")), key


@pytest.mark.parametrize("language", ["sw", "sheng"])
def test_swahili_and_sheng_are_not_copies_of_the_english(language: str) -> None:
    """A phrase of two words or more must be translated; a lone loanword ("video") may stay."""
    for key in sorted(_keys("en")):
        english = {_words(text) for text in _texts(entry(key, "en"))}
        for text in _texts(entry(key, language)):
            words = _words(text)
            assert len(words) < 2 or words not in english, (key, text)


def test_sheng_is_not_a_copy_of_the_swahili() -> None:
    """Sheng is its own register (English nouns, street verbs), not Swahili relabelled."""
    for key in sorted(_keys("sw")):
        swahili = {_words(text) for text in _texts(entry(key, "sw"))}
        for text in _texts(entry(key, "sheng")):
            words = _words(text)
            assert len(words) < 4 or words not in swahili, (key, text)


def test_a_language_outside_the_three_reads_english() -> None:
    assert say("gateway.rate_limit", "mixed") == say("gateway.rate_limit", "en")
    assert set(LANGUAGES) == {"en", "sw", "sheng"}


def test_the_phrasing_is_the_same_for_the_same_turn() -> None:
    at = ReplyKey("conversation-1", 4)
    said = {say("reply.unknown", "sw", at) for _ in range(5)}
    assert len(said) == 1
    across_turns = {say("reply.unknown", "sw", ReplyKey("conversation-1", n)) for n in range(40)}
    assert len(across_turns) > 1


def test_an_unlisted_label_falls_back_to_the_default() -> None:
    assert label("reply.status", "weird", "sw", default="unknown") == label(
        "reply.status", "unknown", "sw"
    )


def test_a_table_is_not_a_sentence() -> None:
    with pytest.raises(TypeError):
        say("reply.status", "en")
