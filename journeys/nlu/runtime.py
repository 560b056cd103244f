"""The classifiers as the bot runs them: the compiled numbers (data/nlu_runtime.npz),
loaded once per process with numpy alone, and the calibrated scores of every head.

journeys/nlu/model.py fits and saves; this module is all a turn needs, so processes that
answer customers never import scikit-learn (journeys/nlu/scorer.py says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.features import length_band
from journeys.nlu.scorer import Compiled, load, score

RUNTIME = DATA_DIR / "nlu_runtime.npz"


@dataclass(frozen=True, slots=True)
class Scores:
    label: str
    confidence: float
    probabilities: dict[str, float]


@cache
def compiled() -> Compiled:
    """The committed compiled model, read once per process (before the launcher forks)."""
    return load(RUNTIME)


def predict(text: str) -> dict[str, Scores]:
    """Calibrated scores of every head for one message."""
    return predict_many([text])[0]


def predict_many(texts: Sequence[str], model: Compiled | None = None) -> list[dict[str, Scores]]:
    """Calibrated scores of every head for each message (`model`: the committed one)."""
    model = model or compiled()
    out = []
    for text in texts:
        verdict = {}
        for name, (probs, classes) in score(model, text, length_band(text)).items():
            best = int(np.argmax(probs))
            verdict[name] = Scores(
                classes[best], float(probs[best]),
                {c: float(p) for c, p in zip(classes, probs, strict=True)},
            )  # fmt: skip
        out.append(verdict)
    return out
