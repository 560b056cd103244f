"""Labelled message sets with all three labels, and the classifiers' verdicts on them.

Shared by `bench/nlu.py` (the independent evaluation set) and the dev-set regression
test: both must judge a message exactly as the graph does — sanitised, consent commands
short-circuiting to `preferences_consent`, then intent, language and governor, and a
recognised scam filed as `spam_casual` whatever it asked for.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from journeys.nlu.consent import detect_consent_command
from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.governor import classify_governor, intent_given_governor
from journeys.nlu.intent import classify_intent
from journeys.nlu.language import detect_language
from journeys.sanitize import sanitize_inbound

# Written from the nlu_eval labelling guide by someone who saw neither the evaluation set
# nor the training corpus; tuned on since, so its scores are optimistic.
DEV_SET = DATA_DIR / "dev4.tsv"
# Language only (`text`, `language`), written the same way by more writers: subtle Sheng
# (a single slang word, contraction, "-anga" habitual or "ma-" plural in a Swahili
# sentence; dev5, dev7 and dev8), Sheng full of English words (dev10), the border
# between Swahili and code-mixing (dev6, dev9), and all four languages as customers of
# the six demo shops would write them (dev11, dev12, dev13).
LANGUAGE_DEV_SETS = {
    "dev5": DATA_DIR / "dev5_language.tsv",
    "dev6": DATA_DIR / "dev6_language.tsv",
    "dev7": DATA_DIR / "dev7_language.tsv",
    "dev8": DATA_DIR / "dev8_language.tsv",
    "dev9": DATA_DIR / "dev9_language.tsv",
    "dev10": DATA_DIR / "dev10_language.tsv",
    "dev11": DATA_DIR / "dev11_language.tsv",
    "dev12": DATA_DIR / "dev12_language.tsv",
    "dev13": DATA_DIR / "dev13_language.tsv",
}


@dataclass(frozen=True, slots=True)
class Labelled:
    text: str
    intent: str
    language: str
    governor: str


@dataclass(frozen=True, slots=True)
class Predicted:
    intent: str
    language: str
    governor: str
    consent_shortcut: bool
    # Calibrated: the chance that the label beside it is right (journeys/nlu/model.py).
    intent_confidence: float = 0.0
    language_confidence: float = 0.0
    governor_confidence: float = 0.0


def load_set(path: Path) -> tuple[Labelled, ...]:
    with path.open(encoding="utf-8", newline="") as handle:
        # QUOTE_NONE: customers type quotes, and the files never quote a field.
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return tuple(Labelled(r["text"], r["intent"], r["language"], r["governor"]) for r in reader)


def load_languages(path: Path) -> tuple[tuple[str, str], ...]:
    """(text, language) rows of a language-only set."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return tuple((r["text"], r["language"]) for r in reader)


def graph_pass(raw: str) -> Predicted:
    """What the graph's consent, intent, language and governor nodes would decide."""
    text = sanitize_inbound(raw).text
    language = detect_language(text)
    lang, lang_conf = language.language, language.confidence
    if detect_consent_command(text) is not None:
        # consent_check answers before the classifiers run; the governor never sees it.
        return Predicted(
            "preferences_consent", lang, "business", consent_shortcut=True,
            intent_confidence=1.0, language_confidence=lang_conf, governor_confidence=1.0,
        )  # fmt: skip
    intent = classify_intent(text)
    governor = classify_governor(text, intent)
    final_intent = intent_given_governor(intent.intent, governor.classification)
    return Predicted(
        final_intent, lang, governor.classification, consent_shortcut=False,
        intent_confidence=intent.confidence, language_confidence=lang_conf,
        governor_confidence=governor.confidence,
    )  # fmt: skip
