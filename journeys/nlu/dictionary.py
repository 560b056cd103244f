"""An English dictionary, for telling an English stem inside a Sheng word.

The word lists of `language_lexicon.json` hold the English of shop messages; a Sheng
"ma-" plural can take any English noun ("ma-conditioner", "ma-bulb"), so the stem is
also looked up in GCIDE (about 114,000 headwords, via the `english-words` package). The
dictionary lists headwords only, so plural, "-s", "-ing" and "-ed" endings are peeled first.
"""

from __future__ import annotations

from functools import cache, lru_cache

from english_words import get_english_words_set


@cache
def headwords() -> frozenset[str]:
    return frozenset(get_english_words_set(["gcide"], lower=True, alpha=True))


@lru_cache(maxsize=16384)  # asked for every unlisted word of every message
def in_english_dictionary(word: str) -> bool:
    """`word` or the singular it was made from is an English headword."""
    words = headwords()
    if word in words:
        return True
    if word.endswith("ies") and word[:-3] + "y" in words:
        return True
    if word.endswith("es") and word[:-2] in words:
        return True
    if word.endswith("s") and not word.endswith("ss") and word[:-1] in words:
        return True
    for ending in ("ing", "ed"):
        # "making" of "make", "marked" of "mark", "mapped" of "map".
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stem = word[: -len(ending)]
            doubled = stem[-1] == stem[-2] and stem[:-1] in words
            if stem in words or stem + "e" in words or doubled:
                return True
    return False
