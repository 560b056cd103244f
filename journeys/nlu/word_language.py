"""How Swahili one unfamiliar word looks, from its letters: a small model we fit ourselves.

The language markers (journeys/nlu/language.py) ask this of every word no list knows
("ujumbe", "warranty", "wowote"). It used to be lingua's English and Swahili models,
which cost about 72 MB in every worker; this is a logistic regression over the word's
character 1-5-grams (hashed, so no vocabulary is stored), fitted on:

- English: GCIDE's headwords (the `english-words` package, also journeys/nlu/dictionary.py)
  and the words of our English-labelled lines and BANKING77's train split, which add the
  inflected forms a dictionary of headwords lacks ("payments", "charged");
- Swahili: the hand Swahili list of language_lexicon.json and the words of our
  Swahili-labelled lines that no English line, English list or dictionary holds (so loans
  such as "delivery" stay English).

Only our first three rounds of writing feed it: the language dev sets (dev4-dev13), the
writers' rounds (own_v4, own_v5: held out writer by writer in bench/nlu.py) and every evaluation
set stay out, so the figures measured on them are not inflated through these votes. The
weights (a float16 array of 2^18, about 0.4 MB compressed) are rebuilt by
`make nlu-model` before the classifiers, whose language features depend on them.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.text import tokens

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import HashingVectorizer

WEIGHTS_FILE = DATA_DIR / "word_language.npz"
LEXICON_FILE = DATA_DIR / "language_lexicon.json"
N_FEATURES = 2**18
NGRAMS = (1, 5)
_RUNS_OF_SPACE = re.compile(r"\s\s+")
# Regularisation: 1, 4 and 16 compared once by the word-vote rule's accuracy on the
# language dev sets dev5-dev13 (1 best by a hair); no evaluation set was looked at.
C = 1.0
MIN_LETTERS = 3


def _hasher() -> HashingVectorizer:
    """The fitting side's featuriser (scikit-learn, imported only to fit); the bot reads
    the same features through `_features` without it."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        analyzer="char", ngram_range=NGRAMS, n_features=N_FEATURES,
        alternate_sign=False, norm="l2", lowercase=False, dtype=np.float32,
    )  # fmt: skip


def _words(texts: Iterable[str]) -> set[str]:
    return {w for t in texts for w in tokens(t) if w.isalpha() and len(w) >= MIN_LETTERS}


def training_words(en_texts: Iterable[str], sw_texts: Iterable[str]) -> tuple[list[str], list[str]]:
    """(English words, Swahili words) to fit on, each sorted so the fit is repeatable."""
    from journeys.nlu.dictionary import headwords, in_english_dictionary

    lists = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    hand_en, hand_sw = set(lists["en"]), set(lists["sw"])
    neutral = set(lists["neutral"]) | set(lists["sheng"])
    en_seen, sw_seen = _words(en_texts), _words(sw_texts)
    # A word both sides use is a loan ("order", "delivery") or a name: it teaches nothing.
    sw = hand_sw | {
        w for w in sw_seen - en_seen - hand_en - neutral if not in_english_dictionary(w)
    }
    en = (set(headwords()) | hand_en | (en_seen - sw_seen)) - sw - neutral
    return sorted(en), sorted(sw)


def fit(en_words: list[str], sw_words: list[str]) -> np.ndarray:
    """Weights (intercept last) of P(Swahili | word), each language weighing the same."""
    from sklearn.linear_model import LogisticRegression

    x = _hasher().transform([*en_words, *sw_words])
    y = np.array([0] * len(en_words) + [1] * len(sw_words))
    model = LogisticRegression(C=C, max_iter=2000, class_weight="balanced")
    model.fit(x, y)
    return np.append(model.coef_[0], model.intercept_[0]).astype(np.float16)


def save(weights: np.ndarray) -> None:
    np.savez_compressed(WEIGHTS_FILE, weights=weights)


@cache
def _weights() -> tuple[np.ndarray, float]:
    stored = np.load(WEIGHTS_FILE)["weights"].astype(np.float32)
    return stored[:-1], float(stored[-1])


def murmurhash3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 (x86, 32-bit), signed: the hash scikit-learn's HashingVectorizer gives
    each n-gram's UTF-8 bytes, so the fitted weights are found at the same places."""
    mask, c1, c2 = 0xFFFFFFFF, 0xCC9E2D51, 0x1B873593
    h, end = seed & mask, len(data) - len(data) % 4

    def mix(k: int) -> int:
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        return (k * c2) & mask

    for i in range(0, end, 4):
        h ^= mix(int.from_bytes(data[i : i + 4], "little"))
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    if tail := data[end:]:
        h ^= mix(int.from_bytes(tail, "little"))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def _column(gram: str) -> int:
    h = murmurhash3_32(gram.encode("utf-8"))
    # abs(-2**31) overflows a 32-bit integer; scikit-learn defines that one case so.
    return (2147483647 - (N_FEATURES - 1)) % N_FEATURES if h == -(2**31) else abs(h) % N_FEATURES


def _features(word: str) -> tuple[list[int], list[float]]:
    """The word's character 1-5-grams hashed to columns, counts scaled to unit length:
    what `_hasher().transform([word])` gives, without scikit-learn."""
    low, high = NGRAMS
    word = _RUNS_OF_SPACE.sub(" ", word)
    grams = [
        word[i : i + n]
        for n in range(low, min(high, len(word)) + 1)
        for i in range(len(word) - n + 1)
    ]
    counts = Counter(_column(g) for g in grams)
    norm = math.sqrt(sum(c * c for c in counts.values()))
    return list(counts), [c / norm for c in counts.values()] if norm else []


@lru_cache(maxsize=65536)
def swahili_probability(word: str) -> float:
    """P(Swahili rather than English) for one folded word, from its letters alone."""
    coef, intercept = _weights()
    columns, values = _features(word)
    logit = float(np.dot(values, coef[columns])) + intercept if columns else intercept
    return 1.0 / (1.0 + math.exp(-logit))


def build() -> np.ndarray:
    """Fit on our first three rounds of writing and BANKING77's train split, and save."""
    from journeys.nlu.sources import banking77_train, own_v1, own_v2

    rows = [*own_v1(), *own_v2(), *banking77_train()]
    en, sw = training_words(
        (r.text for r in rows if r.language == "en"), (r.text for r in rows if r.language == "sw")
    )
    weights = fit(en, sw)
    save(weights)
    _weights.cache_clear()
    swahili_probability.cache_clear()
    return weights
