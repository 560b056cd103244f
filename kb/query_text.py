"""Query words for full-text search and for judging how much of a question a chunk covers.

Stop words are dropped so "how do I…" or "je, ni…" cannot make an unrelated chunk look
relevant. Words of five letters or more match by their first five letters: a cheap
stand-in for stemming that works for English ("delivered" ~ "delivery") and for
Swahili's suffixes ("kurudishiwa" ~ "kurudisha") where Postgres has no stemmer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kb import lexicon
from tulia import words as words_data

PREFIX_LEN = 5
MAX_TERMS = 16
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# English, Swahili and Sheng: "kb_stop_words" in tulia/words.json.
STOPWORDS = words_data.word_set("kb_stop_words")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def term_groups(query: str) -> list[tuple[str, ...]]:
    """Each content word of the query with its stem and its equivalents in other languages."""
    groups = []
    for term in query_terms(query):
        stem = swahili_stem(term)
        known = [root for root in swahili_roots(term) if lexicon.equivalents(root)]
        variants = dict.fromkeys(
            [
                term,
                stem,
                *known,
                *(other for word in (term, stem, *known) for other in lexicon.equivalents(word)),
            ]
        )
        groups.append(tuple(variants))
    return groups


# Subject, tense and object markers a Swahili verb carries in front of its root, and the
# question suffix "-je" ("nalipaje" = how do I pay -> "lipa").
_SUBJECT = r"(?:ni|u|a|tu|mn|m|wa|ki|vi|zi|li|ya|i|si|hu)?"
_TENSE = r"(?:na|li|ta|me|ki|ka|nge|ja)"
_OBJECT = r"(?:ni|ku|tu|wa|ki|vi|zi|li|ya|m)"
_WITH_OBJECT = re.compile(f"^{_SUBJECT}{_TENSE}{_OBJECT}")
_WITHOUT_OBJECT = re.compile(f"^{_SUBJECT}{_TENSE}")
_SUBJUNCTIVE = re.compile(r"^(?:ni|u|a|tu|m|wa)(?=\w{3,}e$)")
MIN_STEM = 4


def swahili_stem(word: str) -> str:
    """Strip a Swahili verb's markers: "nalipaje" -> "lipa", "mnatuma" -> "tuma"."""
    stem = word[:-2] if word.endswith("je") and len(word) > 5 else word
    for pattern in (_WITH_OBJECT, _WITHOUT_OBJECT):
        match = pattern.match(stem)
        if match and len(stem) - match.end() >= MIN_STEM:
            return stem[match.end() :]
    return stem


def swahili_roots(word: str) -> list[str]:
    """Shorter roots a verb may have, only to look up in the lexicon (too short or too
    unsure to search by): the infinitive's ku- ("kuchagua" -> "chagua"), markers leaving
    three letters ("itanifaa" -> "faa", "itanifit" -> "fit"), and the subjunctive's -e
    ("nichague" -> "chagua", "nichukue" -> "chukua")."""
    found = [word[2:]] if word.startswith("ku") and len(word) > 5 else []
    for pattern in (_WITH_OBJECT, _WITHOUT_OBJECT, _SUBJUNCTIVE):
        match = pattern.match(word)
        if match and len(word) - match.end() >= 3:
            found.append(word[match.end() :])
    return found + [root[:-1] + "a" for root in found if root.endswith("e")]


def query_terms(query: str) -> list[str]:
    """Distinct content words of the query, in order, at most MAX_TERMS; a Swahili verb
    whose stem is a stop word ("nitajuaje" ~ "nitajua", I will know) is one too."""
    seen: dict[str, None] = {}
    for word in words(query):
        if len(word) > 1 and word not in STOPWORDS and swahili_stem(word) not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]


def _key(word: str) -> str:
    return word[:PREFIX_LEN]


def tsquery(terms: Iterable[str]) -> str:
    """An OR query for to_tsquery('simple', …); terms are letters/digits only, so safe."""
    parts = dict.fromkeys(f"{_key(t)}:*" if len(t) >= PREFIX_LEN else t for t in terms)
    return " | ".join(parts)


def _matches(term: str, exact: set[str], prefixes: set[str]) -> bool:
    return term in exact or (len(term) >= PREFIX_LEN and _key(term) in prefixes)


def coverage(groups: list[tuple[str, ...]], text: str, weights: list[float]) -> float:
    """Weighted share of the query's words (any equivalent will do) found in `text`.

    Weights are inverse document frequencies: a word every chunk has (the shop's name)
    says little, a rare word that is missing says a lot.
    """
    total = sum(weights)
    if not groups or not total:
        return 0.0
    present = words(text)
    exact = set(present)
    prefixes = {_key(w) for w in present if len(w) >= PREFIX_LEN}
    found = sum(
        weight
        for group, weight in zip(groups, weights, strict=True)
        if any(_matches(term, exact, prefixes) for term in group)
    )
    return found / total
