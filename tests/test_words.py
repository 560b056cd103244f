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
EQUIVALENT_LISTS = frozenset({"shop_words"})
SYNONYM_LISTS = frozenset({"support_words"})


def every_phrase_list() -> dict[str, tuple[str, ...]]:
    """Each phrase list by name, grouped ones as "name.group"; number lists by their words."""
    found: dict[str, tuple[str, ...]] = {}
    for name in words.names():
        if name in NUMBER_LISTS:
            found[name] = tuple(words.numbers(name))
        elif name in EQUIVALENT_LISTS:
            found[name] = tuple(words.equivalents(name))
        elif name in SYNONYM_LISTS:
            found |= {f"{name}.{i}": got for i, got in enumerate(words.synonyms(name))}
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
        if name in NUMBER_LISTS | GROUPED_LISTS | EQUIVALENT_LISTS | SYNONYM_LISTS:
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


def test_an_equivalent_is_one_folded_word() -> None:
    for name in EQUIVALENT_LISTS:
        for word, others in words.equivalents(name).items():
            assert others, word
            assert [o for o in others if fold(o) != o or " " in o] == [], word


def test_shop_words_widen_a_search_both_ways() -> None:
    from tulia.commerce.lexicon import expand, is_product_word

    phrase = "viatu nyeusi"
    assert expand(phrase)[:2] == phrase.split()
    assert {"shoes", "black"} <= set(expand(phrase))
    assert "raba" in expand("sneakers")  # a Sheng word found from the English one
    assert is_product_word("sukuma")
    assert not is_product_word("habari")


def test_filler_words_are_not_product_words_in_a_search() -> None:
    from tulia.commerce.lexicon import expand_groups

    groups = expand_groups("nataka raba za vans for the kids")
    assert [group[0] for group in groups] == ["raba", "vans", "kids"]


def test_kb_stop_words_leave_only_what_the_question_is_about() -> None:
    from kb.query_text import query_terms

    assert query_terms("How do I return shoes?") == ["return", "shoes"]
    assert query_terms("je, mnaleta mpaka Mombasa?") == ["mnaleta", "mpaka", "mombasa"]
    assert query_terms("manze aje bro, bei gani?") == ["bei"]


def test_support_words_are_equivalent_both_ways_across_languages() -> None:
    from kb.lexicon import equivalents

    assert "return" in equivalents("kurudisha")
    assert "kurudisha" in equivalents("return")
    assert "cbd" in equivalents("tao")
    assert equivalents("tao") == equivalents("tao") - {"tao"}  # never itself
