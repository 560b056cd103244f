"""Shape of the NLU evaluation set (bench/nlu_eval/messages.tsv) and its independence.

The set measures the classifiers only while it stays apart from what they learned from,
so the last test compares it with every training and held-out file under
journeys/nlu/data/ by path, without going through the corpus loader.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from functools import cache
from pathlib import Path

from journeys.nlu.collisions import collides
from journeys.nlu.sources import tsv_rows, writer_files
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

ROOT = Path(__file__).resolve().parents[2]
EVAL_SET = ROOT / "bench" / "nlu_eval" / "messages.tsv"
NLU_DATA = ROOT / "journeys" / "nlu" / "data"
COLUMNS = ["text", "intent", "language", "governor"]
LANGUAGE_MINIMUMS = {"en": 120, "sw": 120, "sheng": 120, "mixed": 80}
_LABEL_WORDS = frozenset(INTENTS) | frozenset(LANGS) | frozenset(GOVERNOR_CLASSES)


@cache
def _rows() -> tuple[dict[str, str], ...]:
    with EVAL_SET.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert reader.fieldnames == COLUMNS
        return tuple(reader)


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _strip_labels(field: str) -> str:
    """Drop label words at either end, whatever the data file's layout puts there."""
    words = field.split()
    while words and words[0].strip(":,;") in _LABEL_WORDS:
        words.pop(0)
    while words and words[-1].strip(":,;") in _LABEL_WORDS:
        words.pop()
    return " ".join(words)


def _line_variants(line: str) -> set[str]:
    """The line as a whole and each tab- or pipe-separated field of it, normalised."""
    whole = _normal(line)
    fields = [_normal(part) for part in re.split(r"[\t|]", line)]
    candidates = {whole, *fields}
    return {variant for c in candidates for variant in (c, _strip_labels(c)) if variant}


def _training_lines() -> set[str]:
    # rglob: the writers' rounds live in folders of their own (data/own_v4/).
    files = [p for p in NLU_DATA.rglob("*") if p.suffix in {".txt", ".tsv", ".csv"}]
    assert files, "no training or held-out files found to compare against"
    lines: set[str] = set()
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            lines |= _line_variants(line)
    return lines


def test_set_has_at_least_six_hundred_messages() -> None:
    assert len(_rows()) >= 600


def test_every_row_has_three_valid_labels_and_text() -> None:
    bad = [
        row
        for row in _rows()
        if not row["text"].strip()
        or row["intent"] not in INTENTS
        or row["language"] not in LANGS
        or row["governor"] not in GOVERNOR_CLASSES
        or None in row.values()
    ]
    assert bad == []


def test_every_intent_has_at_least_forty_messages() -> None:
    counts = Counter(row["intent"] for row in _rows())
    assert {intent: counts[intent] for intent in INTENTS if counts[intent] < 40} == {}


def test_every_language_meets_its_minimum() -> None:
    counts = Counter(row["language"] for row in _rows())
    short = {
        lang: counts[lang] for lang, least in LANGUAGE_MINIMUMS.items() if counts[lang] < least
    }
    assert short == {}


def test_every_governor_class_has_at_least_forty_messages() -> None:
    counts = Counter(row["governor"] for row in _rows())
    assert {cls: counts[cls] for cls in GOVERNOR_CLASSES if counts[cls] < 40} == {}


def test_no_two_messages_share_a_text() -> None:
    counts = Counter(_normal(row["text"]) for row in _rows())
    assert [text for text, n in counts.items() if n > 1] == []


def test_no_message_repeats_a_training_or_heldout_line() -> None:
    seen = _training_lines()
    assert [row["text"] for row in _rows() if _normal(row["text"]) in seen] == []


def test_no_row_of_the_writers_round_repeats_a_string_that_measures() -> None:
    """Evaluation, dev and held-out lines, test strings and transcript lines alike."""
    rows = [row for paths in writer_files().values() for path in paths for row in tsv_rows(path)]
    assert [row.text for row in rows if collides(row.text)] == []


def test_a_string_that_measures_is_recognised_however_it_is_written() -> None:
    first = _rows()[0]["text"]
    assert collides(first.upper() + "!!")
    # Joined here: a literal would itself be a test string, and so collide.
    assert not collides(" ".join(["zq7", "xv9", "is in no set"]))
