"""The trained NLU models: reproducible from a sample, deterministic, small, calibrated
scores that are probabilities."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.nlu import features, model, runtime
from journeys.nlu.sources import Row, devlang, own_v1, own_v2
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

ROOT = Path(__file__).resolve().parents[2]
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
    for scores in runtime.predict(text).values():
        assert sum(scores.probabilities.values()) == pytest.approx(1.0, abs=1e-6)
        assert scores.probabilities[scores.label] == scores.confidence
        assert 0.0 <= scores.confidence <= 1.0


def test_calibration_was_learned_out_of_source() -> None:
    """Every head was calibrated on sources held out in turn (journeys/nlu/DATA.md)."""
    for head in model.load().heads.values():
        assert len(head.classifier.out_of_source_accuracy) >= 2


def test_the_committed_runtime_numbers_are_the_committed_artifacts() -> None:
    """data/nlu_runtime.npz is what `make nlu-model` compiled from nlu_model.joblib: a
    stale or hand-edited file gives other scores than the artifact beside it."""
    from journeys.nlu.scorer import compile_artifact

    fitted = compile_artifact(model.load())
    shipped = runtime.compiled()
    assert shipped.word_index.in_order() == fitted.word_index.in_order()
    assert shipped.char_index.in_order() == fitted.char_index.in_order()
    assert np.array_equal(shipped.coef, fitted.coef)
    assert runtime.predict_many(PROBES) == runtime.predict_many(PROBES, fitted)


def test_answering_a_message_never_imports_scikit_learn() -> None:
    """The bot's processes score with numpy alone (about 100 MB less in each)."""
    code = (
        "import sys\n"
        "from journeys.nlu.verdict import verdict\n"
        "verdict('habari, nataka viatu size 42 please')\n"
        "print(sorted(m for m in ('sklearn', 'scipy', 'joblib') if m in sys.modules))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert found.stdout.strip() == "[]"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"aAbzé ñ19_-.\t\n!İß", "SAVE10", "KARIBU", "  ", "msee ", "size 42"]),
        max_size=30,
    ).map("".join)
)
def test_our_ngrams_are_scikit_learns(text: str) -> None:
    """journeys/nlu/features.py cuts the n-grams scikit-learn's fitted analysers cut."""
    art = model.load()
    word = features.word_ngrams(text, re.compile(art.word.token_pattern), *art.word.ngram_range)
    char = features.char_wb_ngrams(text, *art.char.ngram_range)
    assert word == art.word.build_analyzer()(text)
    assert char == art.char.build_analyzer()(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"abkmnstuwyzéñß \t", "ng'", "İ"]), max_size=12).map("".join))
def test_the_word_scorer_hashes_as_scikit_learn_did_when_fitting(word: str) -> None:
    """journeys/nlu/word_language.py finds each n-gram's weight where scikit-learn's
    HashingVectorizer put it at fitting time (MurmurHash3, counts at unit length)."""
    from journeys.nlu import word_language

    row = word_language._hasher().transform([word])
    columns, values = word_language._features(word)
    assert sorted(columns) == sorted(row.indices.tolist())
    fitted = dict(zip(row.indices.tolist(), row.data.tolist(), strict=True))
    for column, value in zip(columns, values, strict=True):
        assert value == pytest.approx(fitted[column], abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(
    # No NUL in a known n-gram: the analysers never cut one, and numpy's text arrays (the
    # saved vocabularies) would drop it.
    known=st.lists(
        st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=12),
        unique=True,
        max_size=40,
    ),
    asked=st.lists(st.text(max_size=14), max_size=30),
)
def test_the_vocabulary_finds_what_a_dict_would(known: list[str], asked: list[str]) -> None:
    """The array-backed vocabulary gives the ids a dict of the same n-grams gives, in the
    order asked, for known n-grams, unknown ones, longer ones and non-ASCII text."""
    from journeys.nlu.scorer import Vocabulary

    vocabulary = Vocabulary.of(known)
    as_dict = {gram: i for i, gram in enumerate(known)}
    questions = asked + known[::2]
    expected = [as_dict[g] for g in questions if g in as_dict]
    assert vocabulary.lookup(questions) == expected
    assert vocabulary.in_order() == known
