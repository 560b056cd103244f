"""The trained NLU models: reproducible from a sample, deterministic, small, calibrated
scores that are probabilities."""

from __future__ import annotations

import hashlib
from functools import cache

import pytest

from journeys.nlu import model
from journeys.nlu.sources import Row, devlang, own_v1, own_v2
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

PROBES = [
    "where is my order",
    "nataka viatu size 42",
    "msee nimelipa lakini haijaonyesha",
    "WINNER! claim your prize now, call 0900123456",
    "you useless idiots",
    "Serikali yatangaza mpango mpya wa elimu",
    "what's the weather tomorrow",
]


def _sample(rows: list[Row], share: int = 5) -> list[Row]:
    """Every row whose text hashes into one bucket of `share`: the same rows on every run."""
    return [r for r in rows if hashlib.sha256(r.text.encode()).digest()[0] % share == 0]


@cache
def _small() -> list[Row]:
    return _sample([*own_v1(), *own_v2(), *devlang()])


def _verdicts(art: model.Artifact) -> list[dict[str, tuple[str, float]]]:
    return [
        {head: (s.label, round(s.confidence, 9)) for head, s in v.items()}
        for v in model.predict_many(PROBES, art)
    ]


def test_a_rebuild_on_a_sample_gives_the_same_predictions_twice() -> None:
    first, second = model.fit(_small()), model.fit(_small())
    assert _verdicts(first) == _verdicts(second)
    assert set(first.heads) == {"intent", "language", "governor"}


def test_one_message_scores_the_same_alone_and_in_a_batch() -> None:
    art = model.load()
    batch = model.predict_many(PROBES, art)
    assert [model.predict(text, art) for text in PROBES] == batch


def test_the_compiled_scorer_matches_scikit_learn() -> None:
    """The per-message scorer (journeys/nlu/scorer.py) reads the fitted numbers without
    scikit-learn's per-call checks; it must give scikit-learn's own probabilities."""
    art = model.load()
    texts = [*PROBES, "", "🙂", "a", "NIMELIPA BUT SIJAPATA CONFIRMATION!!!"]
    reference = model.reference_probabilities(texts, art)
    for i, verdict in enumerate(model.predict_many(texts, art)):
        for name, head in art.heads.items():
            expected = reference[name][i]
            assert verdict[name].label == head.classes[int(expected.argmax())]
            # The isotonic curve is steep just below 1.0, where the two softmax routes
            # round differently in the last bits: agreement to 0.002 there.
            assert verdict[name].confidence == pytest.approx(expected.max(), abs=2e-3)
            found = [verdict[name].probabilities[c] for c in head.classes]
            assert found == pytest.approx(list(expected), abs=1e-2)


def test_the_committed_artifact_is_small_and_knows_every_label() -> None:
    assert model.ARTIFACT.stat().st_size <= 25_000_000
    heads = model.load().heads
    assert set(heads["intent"].classes) == set(INTENTS)
    assert set(heads["language"].classes) == set(LANGS)
    assert set(heads["governor"].classes) == set(GOVERNOR_CLASSES)


@pytest.mark.parametrize("text", PROBES)
def test_scores_are_probabilities_with_the_label_on_top(text: str) -> None:
    for scores in model.predict(text).values():
        assert sum(scores.probabilities.values()) == pytest.approx(1.0, abs=1e-6)
        assert scores.probabilities[scores.label] == scores.confidence
        assert 0.0 <= scores.confidence <= 1.0


def test_calibration_was_learned_out_of_source() -> None:
    """Every head was calibrated on sources held out in turn (journeys/nlu/DATA.md)."""
    for head in model.load().heads.values():
        assert len(head.classifier.out_of_source_accuracy) >= 2
