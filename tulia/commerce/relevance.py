"""Is a search candidate what the customer asked for, a fair alternative, or noise?

Hybrid search always finds *something*: a prefix ("sam:*" for "samba") reaches a
grocer's "samaki", and every item has some nearest neighbour. Showing those as results
tells a customer the shop sells what it does not. Each candidate is judged by how it was
found and by two measured scores, never by word lists:

- every query word matched (exact): a match;
- a typo-tolerant text match (fuzzy): a match when the vectors are similar or every
  query word is spelt closely in the item ("mkaet" ~ "mkate"; not "samba" ~ "samaki");
- a vector neighbour only (near): a match only when every query word is spelt closely
  in it ("nkie air mxa"), never for sharing one common word ("sneakers" does not make
  a Court Classic a "Jordan 1 sneaker"), and never when some item matched the words
  themselves ("tomatoes" finds tomatoes; potatoes are at most an alternative);
- anything else still close is an in-stock alternative; the rest is dropped.

The floors come from measuring the demo catalogs (tests/commerce/test_relevance.py
keeps the measurement): each shop's typo'd product names against the other shop's
names searched in it.

A model number the customer typed must agree: "Jordan 1" is not "Jordan 4", whatever
the scores say (the item calls the same word by another number). So must a model's
variant: "Dunk High" is not "Dunk Low", nor "Air Force 1 High" an "Air Force 1 Low":
the item follows the shared word with another word and has the typed one nowhere. Such
an item is at most the closest alternative ("we don't stock that; the closest we have").
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum
from itertools import pairwise

from tulia.commerce.lexicon import is_product_word
from tulia.normalise import words

# Vector similarity (cosine, offline n-gram embeddings) at which a candidate found by
# typo-tolerant text is the thing asked for, and the lower floor for
# offering it as "the closest we have". Measured on the demo catalogs: another shop's
# product names searched here reach at most 0.26 (most below 0.2).
MATCH_FLOOR = 0.3
ALTERNATIVE_FLOOR = 0.25
# Spelling closeness (difflib ratio, in order or as letters) every query word needs
# when the vectors alone are not convincing. Measured: swapped-letter typos of the
# shop's own names score 1.0; another shop's words against this one's at most 0.8
# ("mkate"/"skate"), prefix look-alikes lower ("samba"/"samaki" 0.73).
SPELLING_FLOOR = 0.85
# A query of more words than this is a long message: two product words of it suffice
# (search.MAX_NEAR_WORDS: the fuzzy search matches any of its words).
LONG_QUERY_WORDS = 6


class Found(StrEnum):
    EXACT = "exact"
    FUZZY = "fuzzy"
    NEAR = "near"


class Verdict(StrEnum):
    MATCH = "match"
    ALTERNATIVE = "alternative"
    NOISE = "noise"


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    text: str  # the item's search text (name, brand, aliases, category, options)
    found: Found
    similarity: float


def spelling(groups: list[list[str]], text: str) -> list[float]:
    """Per query word, how closely it (or one of its equivalents) appears among the
    item's words: 1.0 when it is there as typed."""
    said = text.split()
    if not said:
        return [0.0 for _ in groups]
    return [max(_alike(word, other) for word in group for other in said) for group in groups]


def _alike(typed: str, known: str) -> float:
    """Spelling closeness, forgiving swapped letters ("nkie" is "nike", "mxa" is "max"),
    except in a word the lexicon knows as a kind of product: "boots" is typed on purpose,
    not "boost" with two letters swapped."""
    in_order = SequenceMatcher(None, typed, known).ratio()
    if is_product_word(typed):
        return in_order
    letters = SequenceMatcher(None, sorted(typed), sorted(known)).ratio()
    return max(in_order, letters)


def spelt_enough(groups: list[list[str]], text: str) -> bool:
    """Enough of the query is spelt closely in the item: both of one or two words, all
    but one of a few (as the fuzzy search itself), two of a long message's words."""
    close = sum(score >= SPELLING_FLOOR for score in spelling(groups, text))
    count = len(groups)
    needed = count if count <= 2 else count - 1 if count <= LONG_QUERY_WORDS else 2
    return count > 0 and close >= needed


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def model_numbers(query: str) -> dict[str, str]:
    """word -> the number typed right after it ("jordan 1" -> {"jordan": "1"})."""
    said = words(query)
    return {
        word: following
        for word, following in pairwise(said)
        if not _has_digit(word) and _has_digit(following)
    }


def contradicts_model(numbers: dict[str, str], name: str) -> bool:
    """The item puts a different number after the same word ("Air Jordan 4 Retro" for
    "jordan 1", "Air Max 90" for "air max 95"); a name without one does not contradict."""
    named = words(name)
    for word, following in pairwise(named):
        wanted = numbers.get(word)
        if wanted is not None and _has_digit(following) and following != wanted:
            return True
    return False


def other_variant(query: list[list[str]], name: str, text: str) -> bool:
    """The item names another variant of the model asked for: a query word follows a
    word the item's name shares, the name follows that word with another word, and the
    typed word (or an equivalent) is spelt nowhere in the item ("dunk high" for "Nike
    Dunk Low"). Kinds of product ("nike sneakers") and numbers (model_numbers) aside."""
    if len(query) > LONG_QUERY_WORDS:
        return False  # a long message's words are not one product's name in order
    following = dict(pairwise(words(name)))
    said = text.split() or [""]
    for before, group in pairwise(query):
        typed = group[0]
        after = following.get(before[0])
        if after is None or after in group or _has_digit(typed) or is_product_word(typed):
            continue
        if max(_alike(word, other) for word in group for other in said) < SPELLING_FLOOR:
            return True
    return False


def judge(candidate: Candidate, query: list[list[str]], *, words_matched: bool) -> Verdict:
    """`query`: the search's word groups (expand_groups); `words_matched`: some candidate
    of this search matched every query word."""
    close = candidate.similarity >= ALTERNATIVE_FLOOR
    numbers = model_numbers(" ".join(group[0] for group in query))
    if contradicts_model(numbers, candidate.name):
        return Verdict.ALTERNATIVE if close or candidate.found is Found.EXACT else Verdict.NOISE
    if other_variant(query, candidate.name, candidate.text):
        # It shares the model's word: the closest there is, however far the vectors.
        return Verdict.ALTERNATIVE
    if candidate.found is Found.EXACT:
        return Verdict.MATCH
    spelt = spelt_enough(query, candidate.text)
    if candidate.found is Found.FUZZY and candidate.similarity >= MATCH_FLOOR:
        return Verdict.MATCH
    if spelt and not (candidate.found is Found.NEAR and words_matched):
        return Verdict.MATCH
    return Verdict.ALTERNATIVE if close else Verdict.NOISE
