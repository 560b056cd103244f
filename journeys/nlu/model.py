"""The trained intent, language and governor classifiers: build, save, load, predict.

One shared text featuriser (word 1-2-grams and character 2-5-grams, TF-IDF) feeds three
logistic-regression heads. The language and governor heads also read the old rule
detectors as numeric features (journeys/nlu/markers.py); `fit(..., markers=False)`
builds the same models without them, for comparison.

Calibration (`SourceCalibrated`): the folds are the *sources* of the training text
(journeys/nlu/sources.py), leave-one-source-out. Every score the calibrator learns from
comes from a model that never saw text from that writer or corpus, which is what a real
customer is to the final model; folds of one source would teach it the over-confidence
of text it already knows. An isotonic regression then maps the model's top probability
to the share of such out-of-source answers that were right (top-label calibration: the
confidence the SPEC thresholds act on is the chance the chosen label is right). The
final model is fitted on all sources and reports its top probability through that map.

The artifact (data/nlu_model.joblib, rebuilt by `make nlu-model`) is loaded once per
process by `load()`; tulia/preload.py classifies a warm-up message before gunicorn and
the Celery worker fork, so the children share the loaded model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import joblib
import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import LeaveOneGroupOut, cross_val_predict

from journeys.nlu import runtime, scorer
from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.features import TOKEN_PATTERN, length_band, normalise
from journeys.nlu.markers import GOVERNOR_MARKERS, LANGUAGE_MARKERS
from journeys.nlu.runtime import Scores
from journeys.nlu.scorer import MARKERS, compile_artifact
from journeys.nlu.sources import SOURCE_WEIGHTS, Row

ARTIFACT = DATA_DIR / "nlu_model.joblib"
HEADS = ("intent", "language", "governor")
# The fitted artifact's pickles name journeys.nlu.model.normalise as the vectorisers'
# preprocessor; it lives in journeys/nlu/features.py and is imported here for them.
__all__ = ["Scores", "length_band", "normalise"]
# Marker counts are log-scaled (0-3); TF-IDF rows have unit length. This puts one
# insult word on the scale of a few strongly weighted n-grams, not above them all.
MARKER_SCALE = 1.0
WORD_FEATURES = 30_000
CHAR_FEATURES = 60_000
C = 16.0  # inverse regularisation: 4 and 16 compared on the own held-out split (16 as
# accurate, fewer short messages under 0.70)
CALIBRATION = (
    "isotonic, top label, leave-one-source-out; language by length band (1-2 words / longer);"
    " intent: every source weighs alike"
)
# Source folds fitted two at a time: the shared machine has two cores.
FOLD_JOBS = 2
# A length band with fewer out-of-source points than this uses all of them instead.
MIN_BAND_POINTS = 200
# Length bands (features.length_band: 1-2 words / longer) a head is calibrated by. The
# intent head had three (1-2 / 3-5 / longer) in round eight; out of source they did not
# help (DATA.md, round eight) and lifted long small-talk readings over 0.70, so it has one.
LENGTH_BANDS = {"language": 2}
# Heads whose calibration counts every held-out source alike (each row weighs 1 / its
# source's rows): a new customer is a new writer, and the largest rounds of our own
# writing would otherwise set the curve alone. Out of source (each source's calibration
# learnt from the others) this routes fewer wrong intents (0.338 -> 0.307 of them, mean
# over sources) for fewer intents routed (0.696 -> 0.666); see DATA.md, round eight.
SOURCE_BALANCED_HEADS = frozenset({"intent"})


class SourceCalibrated:
    """A logistic regression whose top probability is calibrated out of source.

    With `bands` > 1, messages of one or two words get a calibrator of their own
    (features.length_band): a word or two is often as much Swahili as Sheng, and the same
    raw score is right less often there than on a sentence (the language head).
    """

    def __init__(self, bands: int = 1, calibrated: bool = True, balanced: bool = False) -> None:
        self.model = LogisticRegression(C=C, max_iter=3000, class_weight="balanced")
        self.bands = bands
        self.source_balanced = balanced
        self.banded = bands > 1
        self.calibrated = calibrated
        self.calibrators: list[IsotonicRegression] = []
        self.classes_: np.ndarray = np.array([])
        self.out_of_source_accuracy: dict[str, float] = {}

    def fit(
        self,
        x: Any,
        labels: Sequence[str],
        groups: Sequence[str],
        weights: Sequence[float],
        bands: Sequence[int],
    ) -> SourceCalibrated:
        y, sources, w = np.asarray(labels), np.asarray(groups), np.asarray(weights)
        band = np.minimum(np.asarray(bands), self.bands - 1)
        if not self.calibrated:
            return self._fit_labels_only(x, y, w, int(band.max()) + 1)
        splits = list(LeaveOneGroupOut().split(x, y, sources))
        held_out = cross_val_predict(
            self.model,
            x,
            y,
            cv=splits,
            method="predict_proba",
            params={"sample_weight": w},
            n_jobs=FOLD_JOBS,
        )
        classes = np.unique(y)
        right = (classes[held_out.argmax(axis=1)] == y).astype(float)
        top = held_out.max(axis=1)
        _, source_ids, per_source = np.unique(sources, return_inverse=True, return_counts=True)
        alike = 1.0 / per_source[source_ids] if self.source_balanced else np.ones(len(y))
        self.calibrators = []
        for b in range(int(band.max()) + 1):
            inside = band == b
            if inside.sum() < MIN_BAND_POINTS:
                inside = np.ones(len(y), dtype=bool)
            iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
            self.calibrators.append(iso.fit(top[inside], right[inside], alike[inside]))
        self.out_of_source_accuracy = {
            src: round(float(right[sources == src].mean()), 3) for src in np.unique(sources)
        }
        if self.banded:
            self.out_of_source_accuracy |= {
                f"band{b}": round(float(right[band == b].mean()), 3) for b in np.unique(band)
            }
        self.model.fit(x, y, sample_weight=w)
        # float32 halves the artifact and the memory; the predictions do not move.
        self.model.coef_ = self.model.coef_.astype(np.float32)
        self.classes_ = self.model.classes_
        return self

    def _fit_labels_only(
        self, x: Any, y: np.ndarray, w: np.ndarray, n_bands: int
    ) -> SourceCalibrated:
        """No source folds: the confidence is the raw top probability. Only for measures
        that read the labels (bench/nlu.py's held-out writers), a fifth of the fitting."""
        self.model.fit(x, y, sample_weight=w)
        self.classes_ = self.model.classes_
        top = self.model.predict_proba(x).max(axis=1)
        identity = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(top, top)
        self.calibrators = [identity] * n_bands
        return self

    def predict_proba(self, x: Any, bands: Sequence[int]) -> np.ndarray:
        raw = self.model.predict_proba(x).astype(np.float64)
        top = raw.max(axis=1)
        band = np.minimum(np.asarray(bands), len(self.calibrators) - 1)
        confidence = np.empty(len(raw))
        for b, iso in enumerate(self.calibrators):
            inside = band == b
            if inside.any():
                confidence[inside] = iso.predict(top[inside])
        # The other labels share what the top one does not claim, in their own ratios.
        others = raw.sum(axis=1) - top
        rest = np.where(others > 0.0, (1.0 - confidence) / np.maximum(others, 1e-12), 0.0)
        out = raw * rest[:, None]
        out[np.arange(len(raw)), raw.argmax(axis=1)] = confidence
        return out


@dataclass
class Head:
    classes: tuple[str, ...]
    classifier: SourceCalibrated
    markers: bool
    marker_scale: float = MARKER_SCALE


@dataclass
class Artifact:
    word: TfidfVectorizer
    char: TfidfVectorizer
    heads: dict[str, Head]
    meta: dict[str, Any] = field(default_factory=dict)


def _vectorisers() -> tuple[TfidfVectorizer, TfidfVectorizer]:
    common: dict[str, Any] = {
        "preprocessor": normalise, "sublinear_tf": True, "dtype": np.float32, "lowercase": False,
    }  # fmt: skip
    word = TfidfVectorizer(
        analyzer="word", token_pattern=TOKEN_PATTERN, ngram_range=(1, 2), min_df=2,
        max_features=WORD_FEATURES, **common,
    )  # fmt: skip
    char = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(2, 5), min_df=2, max_features=CHAR_FEATURES, **common
    )
    return word, char


def _text_matrix(art: Artifact, texts: Sequence[str]) -> sparse.csr_matrix:
    return sparse.hstack([art.word.transform(texts), art.char.transform(texts)], format="csr")


def _head_matrix(
    name: str, with_markers: bool, text_x: Any, texts: Sequence[str], scale: float
) -> Any:
    if not with_markers or name not in MARKERS:
        return text_x
    extra = np.asarray([MARKERS[name](t) for t in texts], dtype=np.float32) * scale
    return sparse.hstack([text_x, sparse.csr_matrix(extra)], format="csr")


def _label(row: Row, head: str) -> str | None:
    return getattr(row, head)


def fit(
    rows: Sequence[Row],
    *,
    markers: bool = True,
    heads: Sequence[str] = HEADS,
    calibrated: bool = True,
) -> Artifact:
    start = time.perf_counter()
    word, char = _vectorisers()
    texts = [r.text for r in rows]
    word.fit(texts)
    char.fit(texts)
    # The pruned n-grams are kept on the vectoriser only for inspection: megabytes.
    word.stop_words_ = char.stop_words_ = None
    art = Artifact(word, char, {})
    text_x = _text_matrix(art, texts)
    counts: dict[str, dict[str, int]] = {}
    held_out: dict[str, dict[str, float]] = {}
    for name in heads:
        idx = [i for i, r in enumerate(rows) if _label(r, name) is not None]
        head_texts = [texts[i] for i in idx]
        labels = [str(_label(rows[i], name)) for i in idx]
        groups = [rows[i].source for i in idx]
        weights = [SOURCE_WEIGHTS.get(g, 1.0) for g in groups]
        x = _head_matrix(name, markers, text_x[idx], head_texts, MARKER_SCALE)
        bands = [length_band(t) for t in head_texts]
        classifier = SourceCalibrated(
            LENGTH_BANDS.get(name, 1), calibrated, name in SOURCE_BALANCED_HEADS
        ).fit(x, labels, groups, weights, bands)
        art.heads[name] = Head(tuple(classifier.classes_), classifier, markers, MARKER_SCALE)
        counts[name] = {g: groups.count(g) for g in sorted(set(groups))}
        held_out[name] = classifier.out_of_source_accuracy
    art.meta = {
        "rows_per_source": counts, "out_of_source_accuracy": held_out,
        "markers": markers, "marker_features": {"language": LANGUAGE_MARKERS,
                                                "governor": GOVERNOR_MARKERS},
        "calibration": CALIBRATION, "source_weights": SOURCE_WEIGHTS,
        "fit_seconds": round(time.perf_counter() - start, 1),
        "features": len(art.word.vocabulary_) + len(art.char.vocabulary_),
    }  # fmt: skip
    return art


def save(art: Artifact, path: Path = ARTIFACT) -> None:
    joblib.dump(art, path, compress=3)


@cache
def load(path: Path = ARTIFACT) -> Artifact:
    """The committed artifact, read once per process (before the launcher forks)."""
    art: Artifact = joblib.load(path)
    return art


def save_runtime(art: Artifact, path: Path = runtime.RUNTIME) -> None:
    """The compiled numbers the bot loads (journeys/nlu/runtime.py), from this artifact."""
    scorer.save(compile_artifact(art), path)


def predict(text: str, art: Artifact) -> dict[str, Scores]:
    """Calibrated scores of every head for one message, by a fitted artifact."""
    return predict_many([text], art)[0]


def predict_many(texts: Sequence[str], art: Artifact) -> list[dict[str, Scores]]:
    """Calibrated scores of every head for each message, by a fitted artifact."""
    return runtime.predict_many(texts, compile_artifact(art))


def reference_probabilities(texts: Sequence[str], art: Artifact) -> dict[str, np.ndarray]:
    """The same probabilities through scikit-learn's own transform and predict_proba:
    what the compiled scorer must reproduce (tests), and the batch route of fitting."""
    text_x = _text_matrix(art, texts)
    bands = [length_band(t) for t in texts]
    return {
        name: head.classifier.predict_proba(
            _head_matrix(name, head.markers, text_x, texts, head.marker_scale), bands
        )
        for name, head in art.heads.items()
    }
