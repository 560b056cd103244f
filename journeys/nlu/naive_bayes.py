"""A small multinomial naive Bayes text classifier, in pure Python.

Small enough to train at import time in a few milliseconds from the corpus file, so
there is no model artefact to version or download. Features are word unigrams and
bigrams plus character n-grams (which carry unseen spellings such as "haijakam" or
"kubuy" towards words seen in training).

Raw naive Bayes posteriors are wildly over-confident, so scores are averaged per
feature and passed through a softmax with a tuned sharpness; `coverage` (the share of
words seen in training) lets callers damp confidence on messages the corpus never
covered.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from journeys.nlu.text import char_ngrams, sw_stem, tokens

CHAR_WEIGHT = 0.25  # char n-grams are many and correlated; words should lead
STEM_WEIGHT = 0.5  # a Swahili root is good evidence, but tense and negation are lost


Features = defaultdict[str, float]


def featurize(text: str) -> Features:
    words = tokens(text)
    feats: Features = defaultdict(float)
    for i, word in enumerate(words):
        feats[f"w:{word}"] += 1.0
        if i:
            feats[f"b:{words[i - 1]}_{word}"] += 1.0
        stem = sw_stem(word)
        if stem is not None:
            feats[f"s:{stem}"] += STEM_WEIGHT
        for gram in char_ngrams(word):
            feats[f"c:{gram}"] += CHAR_WEIGHT
    return feats


@dataclass
class NaiveBayes:
    sharpness: float = 4.0
    alpha: float = 0.05  # 5-fold CV on the corpus: 0.05 beat 0.1 and 0.3
    counts: dict[str, Features] = field(default_factory=dict)
    totals: dict[str, float] = field(default_factory=dict)
    priors: dict[str, float] = field(default_factory=dict)
    vocabulary: set[str] = field(default_factory=set)
    # Smoothed log-probabilities, computed once at fit time so scoring only adds.
    log_probs: dict[str, dict[str, float]] = field(default_factory=dict)
    unseen_log_prob: dict[str, float] = field(default_factory=dict)

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> NaiveBayes:
        label_counts = Counter(labels)
        for text, label in zip(texts, labels, strict=True):
            feats = featurize(text)
            counter = self.counts.setdefault(label, defaultdict(float))
            for name, value in feats.items():
                counter[name] += value
            self.vocabulary.update(feats)
        for label, counter in self.counts.items():
            self.totals[label] = sum(counter.values())
            self.priors[label] = math.log(label_counts[label] / len(labels))
            denom = self.totals[label] + self.alpha * len(self.vocabulary)
            self.unseen_log_prob[label] = math.log(self.alpha / denom)
            self.log_probs[label] = {
                f: math.log((n + self.alpha) / denom) for f, n in counter.items()
            }
        return self

    def _log_likelihood(self, label: str, feats: list[tuple[str, float]]) -> float:
        log_probs, unseen = self.log_probs[label], self.unseen_log_prob[label]
        return sum(n * log_probs.get(f, unseen) for f, n in feats)

    def scores(self, text: str) -> dict[str, float]:
        """Calibrated class probabilities (sum to 1); uniform when nothing is known."""
        known = [(f, n) for f, n in featurize(text).items() if f in self.vocabulary]
        weight = sum(n for _, n in known)
        if not weight:
            return {label: 1 / len(self.counts) for label in self.counts}
        per_feature = {
            label: (self._log_likelihood(label, known) + self.priors[label]) / weight
            for label in self.counts
        }
        return _softmax(per_feature, self.sharpness * math.sqrt(weight))

    def coverage(self, text: str) -> float:
        """Share of the message's words that occur in the training corpus."""
        words = tokens(text)
        if not words:
            return 0.0
        return sum(f"w:{word}" in self.vocabulary for word in words) / len(words)


def _softmax(values: dict[str, float], scale: float) -> dict[str, float]:
    top = max(values.values())
    exps = {k: math.exp((v - top) * scale) for k, v in values.items()}
    total = sum(exps.values())
    return {k: v / total for k, v in exps.items()}


def train(examples: Iterable[tuple[str, str]], sharpness: float = 4.0) -> NaiveBayes:
    pairs = list(examples)
    return NaiveBayes(sharpness=sharpness).fit([t for t, _ in pairs], [y for _, y in pairs])
