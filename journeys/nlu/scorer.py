"""The three heads of a fitted artifact, compiled for scoring one message at a time.

scikit-learn's `transform` and `predict_proba` validate their input, build sparse
matrices and check for data frames on every call: on one short message that overhead
is most of the time (about 2 ms of a 2.5 ms pass, more under load), and the work itself
is a few hundred multiply-adds. So the compiled scorer reads the fitted numbers once
(vocabularies, idf, the three heads' coefficients side by side, the isotonic maps) and
scores a message with binary searches of the vocabularies and one small dense product:

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

The compiled numbers are also what the bot loads: `make nlu-model` writes them beside the
fitted artifact (data/nlu_runtime.npz, plain arrays and JSON, read with numpy alone), so
a running process never imports scikit-learn or SciPy (about 100 MB each process) and
the n-grams come from journeys/nlu/features.py.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from journeys.nlu.features import char_wb_ngrams, word_ngrams
from journeys.nlu.markers import governor_markers, language_markers

if TYPE_CHECKING:
    from journeys.nlu.model import Artifact

# The heads that also read the rule detectors' counts, and the detector each reads.
MARKERS: dict[str, Callable[[str], list[float]]] = {
    "language": language_markers,
    "governor": governor_markers,
}
FORMAT = 1
END = b"\xff"  # ends every n-gram's bytes in a Vocabulary (never a UTF-8 byte)


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
class Vocabulary:
    """A vectoriser's n-grams and their feature ids, held as two numpy arrays.

    A dict of the same n-grams costs each process about 11 MB of Python objects at
    77,000 features (two thirds of what the whole model then takes), and those objects'
    pages are copied into every forked worker as their counts change; the arrays are a
    tenth of that and stay shared. An n-gram is found by binary search over its UTF-8
    bytes, each ended by 0xFF (never a UTF-8 byte) because numpy's byte strings drop
    trailing NULs.
    """

    grams: np.ndarray  # the n-grams as UTF-8 bytes, sorted
    ids: np.ndarray  # the feature id of each sorted n-gram

    @classmethod
    def of(cls, grams: list[str] | np.ndarray) -> Vocabulary:
        """The vocabulary whose n-gram number i is grams[i]."""
        # Whole-array operations: a list of 77,000 small strings on the way would stay in
        # the process's small-object arenas after it is freed.
        text = np.asarray(grams, dtype=str)
        encoded = np.char.add(np.char.encode(text, "utf-8", "surrogatepass"), END)
        order = np.argsort(encoded, kind="stable")
        return cls(encoded[order], order.astype(np.int32))

    def __len__(self) -> int:
        return len(self.ids)

    def in_order(self) -> list[str]:
        """The n-grams by feature id (what `of` was given)."""
        by_id = np.empty_like(self.grams)
        by_id[self.ids] = self.grams
        return [g[:-1].decode("utf-8", "surrogatepass") for g in by_id.tolist()]

    def lookup(self, grams: list[str]) -> list[int]:
        """The feature id of each n-gram found, in the order given (unknown ones left out)."""
        encoded = [_key(g) for g in grams]
        # A longer n-gram than any known cannot be one (and would be cut to fit the array).
        width = self.grams.dtype.itemsize
        kept = [e for e in encoded if len(e) <= width]
        if not kept or not len(self.ids):
            return []
        query = np.array(kept, dtype=self.grams.dtype)
        at = np.minimum(np.searchsorted(self.grams, query), len(self.grams) - 1)
        found = self.grams[at] == query
        return self.ids[at[found]].tolist()


def _key(gram: str) -> bytes:
    return gram.encode("utf-8", "surrogatepass") + END


@dataclass(frozen=True, slots=True)
class Compiled:
    word_analyzer: Callable[[str], list[str]]
    char_analyzer: Callable[[str], list[str]]
    word_index: Vocabulary
    char_index: Vocabulary
    word_idf: np.ndarray
    char_idf: np.ndarray
    # (features, all heads' classes): word features first, then character features.
    coef: np.ndarray
    n_word: int
    heads: tuple[CompiledHead, ...]
    # How the n-grams are cut (token pattern, n-gram ranges), as the vectorisers were fitted.
    grams: dict[str, object]


def compile_artifact(art: Artifact) -> Compiled:
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
    if art.char.analyzer != "char_wb":
        raise ValueError("the character vectoriser is expected to read char_wb n-grams")
    grams = {
        "token_pattern": art.word.token_pattern,
        "word_range": list(art.word.ngram_range),
        "char_range": list(art.char.ngram_range),
    }
    return _assemble(
        grams, words=_by_index(art.word.vocabulary_), chars=_by_index(art.char.vocabulary_),
        word_idf=np.asarray(art.word.idf_, float), char_idf=np.asarray(art.char.idf_, float),
        # float32 as fitted (journeys/nlu/model.py): half the memory, the same scores.
        coef=np.ascontiguousarray(np.hstack(blocks), dtype=np.float32), heads=tuple(heads),
    )  # fmt: skip


def _by_index(vocabulary: dict[str, int]) -> list[str]:
    words = [""] * len(vocabulary)
    for word, index in vocabulary.items():
        words[index] = word
    return words


def _assemble(
    grams: dict[str, object],
    *,
    words: list[str] | np.ndarray,
    chars: list[str] | np.ndarray,
    word_idf: np.ndarray,
    char_idf: np.ndarray,
    coef: np.ndarray,
    heads: tuple[CompiledHead, ...],
) -> Compiled:
    word_range = cast("list[int]", grams["word_range"])
    char_range = cast("list[int]", grams["char_range"])
    pattern = re.compile(str(grams["token_pattern"]))
    return Compiled(
        partial(word_ngrams, token_pattern=pattern, low=word_range[0], high=word_range[1]),
        partial(char_wb_ngrams, low=char_range[0], high=char_range[1]),
        Vocabulary.of(words), Vocabulary.of(chars),
        word_idf, char_idf, coef, len(words), heads, grams,
    )  # fmt: skip


def save(compiled: Compiled, path: Path) -> None:
    """The compiled numbers as plain arrays (no pickle): what the bot loads."""
    meta = {
        "format": FORMAT,
        "grams": compiled.grams,
        "heads": [
            {
                "name": h.name, "classes": list(h.classes), "columns": [h.columns.start,
                h.columns.stop], "markers": h.marker_coef is not None, "banded": h.banded,
                "curves": len(h.curves),
            }
            for h in compiled.heads
        ],
    }  # fmt: skip
    arrays: dict[str, np.ndarray] = {
        "meta": np.array(json.dumps(meta)),
        "words": np.array(compiled.word_index.in_order(), dtype=str),
        "chars": np.array(compiled.char_index.in_order(), dtype=str),
        "word_idf": compiled.word_idf,
        "char_idf": compiled.char_idf,
        "coef": compiled.coef,
    }
    for h in compiled.heads:
        arrays[f"{h.name}.intercept"] = h.intercept
        if h.marker_coef is not None:
            arrays[f"{h.name}.marker_coef"] = h.marker_coef
        for b, (xs, ys) in enumerate(h.curves):
            arrays[f"{h.name}.curve{b}.x"], arrays[f"{h.name}.curve{b}.y"] = xs, ys
    with path.open("wb") as out:
        np.savez_compressed(out, **arrays)  # type: ignore[arg-type]


def load(path: Path) -> Compiled:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        if meta["format"] != FORMAT:
            raise ValueError(f"{path}: format {meta['format']}, expected {FORMAT}")
        heads = tuple(
            CompiledHead(
                h["name"],
                tuple(h["classes"]),
                slice(*h["columns"]),
                MARKERS[h["name"]] if h["markers"] else None,
                data[f"{h['name']}.marker_coef"] if h["markers"] else None,
                data[f"{h['name']}.intercept"],
                tuple(
                    (data[f"{h['name']}.curve{b}.x"], data[f"{h['name']}.curve{b}.y"])
                    for b in range(h["curves"])
                ),
                h["banded"],
            )
            for h in meta["heads"]
        )
        return _assemble(
            meta["grams"], words=data["words"], chars=data["chars"],
            word_idf=data["word_idf"], char_idf=data["char_idf"],
            coef=np.ascontiguousarray(data["coef"]), heads=heads,
        )  # fmt: skip


def _tfidf(
    grams: list[str], index: Vocabulary, idf: np.ndarray, offset: int
) -> tuple[list[int], list[float]]:
    """Feature ids and unit-length sublinear TF-IDF values of one vectoriser's n-grams."""
    counts = Counter(index.lookup(grams))
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
        # A head calibrated by fewer bands reads its last (longest) band for the rest.
        xs, ys = head.curves[min(band, len(head.curves) - 1) if head.banded else 0]
        confidence = float(np.interp(top, xs, ys))
        # The other labels share what the top one does not claim, in their own ratios.
        others = float(np.delete(raw, best).sum())  # not 1 - top: that loses digits near 1
        probs = raw * ((1.0 - confidence) / others if others > 0.0 else 0.0)
        probs[best] = confidence
        out[head.name] = (probs, head.classes)
    return out
