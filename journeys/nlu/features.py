"""What the classifiers read from a message, with nothing but the standard library.

The trained vectorisers were configured with these (journeys/nlu/model.py), and the
running bot recomputes them without importing scikit-learn (journeys/nlu/scorer.py):
scikit-learn and the SciPy parts it pulls in cost about 100 MB in every process that
imports them, for a few lines of string slicing. `tests/engine/test_nlu_model.py`
holds these n-grams to scikit-learn's own analysers on generated text.
"""

from __future__ import annotations

import re

from journeys.nlu.text import fold

_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"\w+")
_CODE = re.compile(r"\b[A-Z]{3,}\d{1,4}\b")
_RUNS_OF_SPACE = re.compile(r"\s\s+")
SHORT_WORDS = 2
# The word vectoriser's token pattern (scikit-learn's default keeps only 2+ letters;
# one-letter words such as "u" and "n" carry meaning in customers' writing).
TOKEN_PATTERN = r"(?u)\b\w+\b"  # noqa: S105 (a regex, no password)


def normalise(text: str) -> str:
    """Folded text with every digit read as 0: "size 42" and "size 43" are one pattern,
    and phone or till numbers stop being thousands of rare n-grams. A capitalised word
    ending in a number ("SAVE10", "KARIBU20") is read as the word `promocode`: every
    shop's codes are new words, their shape is what customers share."""
    return _DIGIT.sub("0", fold(_CODE.sub(" promocode ", text)))


def length_band(text: str) -> int:
    """0 for a message of one or two words, 1 for anything longer."""
    return 0 if len(_WORD.findall(text)) <= SHORT_WORDS else 1


def word_ngrams(text: str, token_pattern: re.Pattern[str], low: int, high: int) -> list[str]:
    """Word n-grams of the normalised text, as scikit-learn's word analyser makes them:
    tokens, then each run of `low`..`high` tokens joined by one space."""
    tokens = token_pattern.findall(normalise(text))
    grams = list(tokens) if low == 1 else []
    for n in range(max(low, 2), min(high, len(tokens)) + 1):
        grams.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return grams


def char_wb_ngrams(text: str, low: int, high: int) -> list[str]:
    """Character n-grams inside word boundaries ("char_wb"): each word padded with one
    space each side; a word shorter than n gives itself once, padded."""
    grams: list[str] = []
    for word in _RUNS_OF_SPACE.sub(" ", normalise(text)).split():
        padded = f" {word} "
        for n in range(low, high + 1):
            if len(padded) <= n:
                grams.append(padded)
                break
            grams.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
    return grams
