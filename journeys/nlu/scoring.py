"""Precision, recall and F1 of one label over (gold, predicted) pairs: the figures the
NLU benchmarks print per class."""

from __future__ import annotations

from collections.abc import Sequence


def prf(pairs: Sequence[tuple[str, str]], label: str) -> tuple[float, float, float, int]:
    """(precision, recall, F1, support); 0.0 where a ratio has nothing to divide by."""
    tp = sum(gold == label and pred == label for gold, pred in pairs)
    predicted = sum(pred == label for _, pred in pairs)
    support = sum(gold == label for gold, _ in pairs)
    precision = tp / predicted if predicted else 0.0
    recall = tp / support if support else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, support
