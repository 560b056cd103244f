"""The offline default: hashed character n-gram embeddings (fastText-style subwords).

Why this and not a packaged neural model: see README notes in the closing report; in
short, the packaged MiniLM needs torch (GBs, slow on 2 cores) and knows no Sheng, while
subword hashing needs nothing, embeds ~10k texts a second here, tolerates typos ("snekers"
shares most trigrams with "sneakers") and works for any language. Meaning across
languages ("viatu" = shoes) comes from the synonym lexicon applied before embedding.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

from tulia.embeddings.base import EMBEDDING_DIMENSIONS
from tulia.normalise import words

NGRAM_SIZES = (3, 4, 5)
WORD_WEIGHT = 2.0  # whole words count more than any one of their fragments


def _features(text: str) -> dict[str, float]:
    features: dict[str, float] = {}
    for word in words(text):
        features["w:" + word] = features.get("w:" + word, 0.0) + WORD_WEIGHT
        padded = f"<{word}>"
        for size in NGRAM_SIZES:
            for start in range(max(1, len(padded) - size + 1)):
                gram = padded[start : start + size]
                features[gram] = features.get(gram, 0.0) + 1.0
    return features


def _bucket(feature: str, dimensions: int) -> tuple[int, float]:
    """A stable hash (not Python's salted hash()) picks the slot and a sign."""
    digest = zlib.crc32(feature.encode())
    return digest % dimensions, (1.0 if digest & 0x80000000 else -1.0)


def hashed_vector(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for feature, weight in _features(text).items():
        slot, sign = _bucket(feature, dimensions)
        # Sub-linear weighting so a repeated word does not dominate.
        vector[slot] += sign * (1.0 + math.log(weight))
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector] if norm else vector


class OfflineEmbedder:
    name = f"hashed-char-ngram-v1-{EMBEDDING_DIMENSIONS}"
    dimensions = EMBEDDING_DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [hashed_vector(text, self.dimensions) for text in texts]
