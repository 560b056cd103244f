"""Strings that measure the classifiers, which no training row may repeat.

A training row equal to a line of an evaluation, dev or held-out set, to a message a
test sends or to a transcript's customer line would make that measurement report
memory, not understanding. Texts are compared by their letters and digits, case folded
("Where is my order?!" is "whereismyorder"). Used at build time only: the fourth round
of writing (journeys/nlu/sources.py `own_v4`) drops a colliding row, and
tests/engine/test_nlu_eval_set.py checks that none is left in the files.
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import yaml

from journeys.nlu.corpus import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
EVAL_SET = ROOT / "bench" / "nlu_eval" / "messages.tsv"
TRANSCRIPTS = ROOT / "journeys" / "transcripts"
TESTS = ROOT / "tests"
# Every file of journeys/nlu/data that measures: the dev sets (dev4-dev13, including
# the language sets dev5-dev10 that also train the language head) and the held-out sets.
MEASURING_GLOBS = ("dev*.tsv", "intents_heldout.txt", "intents_dev*.txt", "governor_*.txt")


def key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _data_lines() -> Iterator[str]:
    for pattern in MEASURING_GLOBS:
        for path in sorted(DATA_DIR.glob(pattern)):
            for line in path.read_text(encoding="utf-8").splitlines():
                # `intent|language|text` files and `text<TAB>labels` files alike.
                yield line.split("|", 2)[-1] if path.suffix == ".txt" else line.split("\t", 1)[0]


def _eval_lines() -> Iterator[str]:
    with EVAL_SET.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            yield row["text"]


def _said(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for name, value in node.items():
            if name == "say" and isinstance(value, str):
                yield value
            else:
                yield from _said(value)
    elif isinstance(node, list):
        for item in node:
            yield from _said(item)


def _transcript_lines() -> Iterator[str]:
    for path in sorted(TRANSCRIPTS.glob("*.yaml")):
        yield from _said(yaml.safe_load(path.read_text(encoding="utf-8")))


def _test_strings() -> Iterator[str]:
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield node.value


@cache
def measuring_keys() -> frozenset[str]:
    texts = [*_data_lines(), *_eval_lines(), *_transcript_lines(), *_test_strings()]
    return frozenset(k for k in map(key, texts) if k)


def collides(text: str) -> bool:
    return key(text) in measuring_keys()
