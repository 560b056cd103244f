"""The three heads of a fitted artifact, compiled for scoring one message at a time.

scikit-learn's `transform` and `predict_proba` validate their input, build sparse
matrices and check for data frames on every call: on one short message that overhead
is most of the time (about 2 ms of a 2.5 ms pass, more under load), and the work itself
is a few hundred multiply-adds. So the compiled scorer reads the fitted numbers once
(vocabularies, idf, the three heads' coefficients side by side, the isotonic maps) and
scores a message with plain dict lookups and one small dense product:

- the word and character n-grams of the message are looked up once for all three heads
  (the heads share one featuriser);
- TF-IDF as fitted: sublinear term frequency times idf, each vectoriser's part scaled to
  unit length;
- one product of those few features with the stacked coefficients gives every head's
  logits, the marker features adding their own; softmax per head (multinomial logistic
  regression);
- the isotonic calibration map is a piecewise-linear curve, clipped at its ends, which is
  what `np.interp` computes.

The results equal the scikit-learn route (tests/engine/test_nlu_model.py checks it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from journeys.nlu.model import Artifact


@dataclass(frozen=True, slots=True)
class CompiledHead:
    name: str
    classes: tuple[str, ...]
    columns: slice  # this head's columns of the stacked text coefficients
    markers: Callable[[str], list[float]] | None
    marker_coef: np.ndarray | None  # (markers, classes), already times the marker scale
    intercept: np.ndarray
    # Isotonic curves (thresholds, values) per length band; one curve when not banded.
    curves: tuple[tuple[np.ndarray, np.ndarray], ...]
    banded: bool


@dataclass(frozen=True, slots=True)
class Compiled:
    word_analyzer: Callable[[str], list[str]]
    char_analyzer: Callable[[str], list[str]]
    word_index: dict[str, int]
    char_index: dict[str, int]
    word_idf: np.ndarray
    char_idf: np.ndarray
    # (features, all heads' classes): word features first, then character features.
    coef: np.ndarray
    n_word: int
    heads: tuple[CompiledHead, ...]


def compile_artifact(art: Artifact) -> Compiled:
    from journeys.nlu.model import MARKERS

    n_word = len(art.word.vocabulary_)
    blocks, heads, start = [], [], 0
    for name, head in art.heads.items():
        clf = head.classifier
        coef = np.asarray(clf.model.coef_, dtype=np.float64)
        if coef.shape[0] != len(head.classes):
            raise ValueError(f"head {name}: a multinomial model per class is expected")
        n_text = n_word + len(art.char.vocabulary_)
        blocks.append(coef[:, :n_text].T)
        marker_fn = MARKERS.get(name) if head.markers else None
        marker_coef = coef[:, n_text:].T * head.marker_scale if marker_fn else None
        curves = tuple(
            (np.asarray(iso.X_thresholds_, float), np.asarray(iso.y_thresholds_, float))
            for iso in clf.calibrators
        )
        heads.append(
            CompiledHead(
                name,
                tuple(str(c) for c in head.classes),
                slice(start, start + coef.shape[0]),
                marker_fn,
                marker_coef,
                np.asarray(clf.model.intercept_, float),
                curves,
                clf.banded,
            )
        )
        start += coef.shape[0]
    return Compiled(
        art.word.build_analyzer(), art.char.build_analyzer(),
        dict(art.word.vocabulary_), dict(art.char.vocabulary_),
        np.asarray(art.word.idf_, float), np.asarray(art.char.idf_, float),
        np.ascontiguousarray(np.hstack(blocks)), n_word, tuple(heads),
    )  # fmt: skip


def _tfidf(
    grams: list[str], index: dict[str, int], idf: np.ndarray, offset: int
) -> tuple[list[int], list[float]]:
    """Feature ids and unit-length sublinear TF-IDF values of one vectoriser's n-grams."""
    counts = Counter(i for g in grams if (i := index.get(g)) is not None)
    ids = list(counts)
    values = [(1.0 + math.log(n)) * idf[i] for i, n in counts.items()]
    norm = math.sqrt(sum(v * v for v in values))
    return [i + offset for i in ids], [v / norm for v in values] if norm else values


def score(
    compiled: Compiled, text: str, band: int
) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """Calibrated probabilities of every head for one message (`band`: its length band)."""
    w_ids, w_vals = _tfidf(compiled.word_analyzer(text), compiled.word_index, compiled.word_idf, 0)
    c_ids, c_vals = _tfidf(
        compiled.char_analyzer(text), compiled.char_index, compiled.char_idf, compiled.n_word
    )
    ids = w_ids + c_ids
    logits = (
        np.asarray(w_vals + c_vals) @ compiled.coef[ids]
        if ids
        else np.zeros(compiled.coef.shape[1])
    )
    out = {}
    for head in compiled.heads:
        z = logits[head.columns] + head.intercept
        if head.marker_coef is not None and head.markers is not None:
            z = z + np.asarray(head.markers(text)) @ head.marker_coef
        z = np.exp(z - z.max())
        raw = z / z.sum()
        best = int(raw.argmax())
        top = float(raw[best])
        xs, ys = head.curves[band if head.banded and band < len(head.curves) else 0]
        confidence = float(np.interp(top, xs, ys))
        # The other labels share what the top one does not claim, in their own ratios.
        others = 1.0 - top
        probs = raw * ((1.0 - confidence) / others if others > 0.0 else 0.0)
        probs[best] = confidence
        out[head.name] = (probs, head.classes)
    return out
