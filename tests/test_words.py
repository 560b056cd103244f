"""The customer word lists (tulia/words.json): every list loads, is folded and unique."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tulia import words
from tulia.normalise import find_phrase, fold

NUMBER_LISTS = frozenset({"ordinals"})
GROUPED_LISTS = frozenset({"payment_method", "sensitive", "language_names"})


def every_phrase_list() -> dict[str, tuple[str, ...]]:
    """Each phrase list by name, grouped ones as "name.group"; number lists by their words."""
    found: dict[str, tuple[str, ...]] = {}
    for name in words.names():
        if name in NUMBER_LISTS:
            found[name] = tuple(words.numbers(name))
        elif name in GROUPED_LISTS:
            found |= {f"{name}.{key}": got for key, got in words.grouped(name).items()}
        else:
            found[name] = words.phrases(name)
    return found


def test_every_list_in_the_file_is_read_by_one_of_the_loaders() -> None:
    raw = json.loads(words.WORDS_FILE.read_text(encoding="utf-8"))
    assert set(words.names()) == set(raw)
    assert every_phrase_list()  # every shape loaded without a ValueError


@pytest.mark.parametrize("name", sorted(every_phrase_list()))
def test_a_list_is_non_empty_folded_and_without_repeats(name: str) -> None:
    phrases = every_phrase_list()[name]
    assert phrases
    assert [p for p in phrases if fold(p) != p] == []
    assert len(set(phrases)) == len(phrases), sorted(p for p in phrases if phrases.count(p) > 1)


def test_each_language_of_a_phrase_list_has_phrases() -> None:
    for name in words.names():
        if name in NUMBER_LISTS | GROUPED_LISTS:
            continue
        assert all(words.by_language(name).values()), name
        assert set(words.by_language(name)) <= set(words.LANGUAGES)


def test_ordinals_mean_the_same_number_in_english_and_swahili() -> None:
    ordinals = words.numbers("ordinals")
    assert ordinals["third"] == ordinals["tatu"] == ordinals["three"] == 3


@settings(max_examples=examples(200))
@given(
    st.sampled_from(sorted(every_phrase_list().items())),
    st.data(),
    st.sampled_from(["", "Hi, ", "sawa... "]),
    st.sampled_from(["", "!", " please", " tafadhali?"]),
)
def test_a_listed_phrase_is_found_however_it_is_typed(
    listed: tuple[str, tuple[str, ...]], data: st.DataObject, before: str, after: str
) -> None:
    phrase = data.draw(st.sampled_from(listed[1]))
    typed = f"{before}{phrase.upper()}{after}"
    assert find_phrase(typed, listed[1]) is not None
