"""Loading the labelled message corpus (journeys/nlu/data/*.txt).

One example per line, `intent|language|text`; lines starting with # are comments. The
training file and the held-out file are written apart; nothing ever trains on the
held-out one, so its scores say how the classifiers do on unseen phrasings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"
TRAIN_FILE = DATA_DIR / "intents_train.txt"
HELDOUT_FILE = DATA_DIR / "intents_heldout.txt"
GOVERNOR_HELDOUT_FILE = DATA_DIR / "governor_heldout.txt"
# Second held-out pair, written before the 2026-11 tuning round (more shops, typos).
DEV2_FILE = DATA_DIR / "intents_dev2.txt"
GOVERNOR_DEV2_FILE = DATA_DIR / "governor_dev2.txt"
# Third pair, written from the nlu_eval labelling guide's conventions (bench/nlu_eval/README.md).
DEV3_FILE = DATA_DIR / "intents_dev3.txt"
GOVERNOR_DEV3_FILE = DATA_DIR / "governor_dev3.txt"


@dataclass(frozen=True, slots=True)
class Example:
    intent: str
    language: str
    text: str


def parse_line(line: str) -> Example | None:
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    intent, language, text = line.split("|", 2)
    return Example(intent=intent.strip(), language=language.strip(), text=text.strip())


@cache
def load_examples(path: Path) -> tuple[Example, ...]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(ex for ex in map(parse_line, lines) if ex is not None)


def training_examples() -> tuple[Example, ...]:
    return load_examples(TRAIN_FILE)


def heldout_examples() -> tuple[Example, ...]:
    return load_examples(HELDOUT_FILE)


def governor_examples() -> tuple[Example, ...]:
    """Governor evaluation set; the `intent` field holds the governor class."""
    return load_examples(GOVERNOR_HELDOUT_FILE)


def dev2_examples() -> tuple[Example, ...]:
    return load_examples(DEV2_FILE)


def governor_dev2_examples() -> tuple[Example, ...]:
    return load_examples(GOVERNOR_DEV2_FILE)


def dev3_examples() -> tuple[Example, ...]:
    return load_examples(DEV3_FILE)


def governor_dev3_examples() -> tuple[Example, ...]:
    return load_examples(GOVERNOR_DEV3_FILE)
