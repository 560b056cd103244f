"""Deterministic intent classifier: naive Bayes on our corpus, nudged by strong cue words.

Order of play: a message made only of pleasantries is small talk (closed vocabulary,
see small_talk.py); otherwise an opening greeting is set aside so that "hi, mna unga?"
is judged on its request; a context-less fragment ("the second one", "ile ya jana",
see fragments.py) is unknown; then naive Bayes scores are combined with cue words and cue
phrases ("to shop", "last price") from intent_cues.json.

Confidence is tuned for the SPEC §5.2 thresholds: clear messages land ≥ 0.70 (route),
ambiguous ones 0.50-0.70 (clarify), and messages made mostly of words the corpus never
saw fall below 0.50 (unknown handler). A message with no known word at all is "unknown".
On 5-fold cross-validation about 95% of the answers that clear 0.70 are right.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from journeys.nlu.corpus import DATA_DIR, Example, training_examples
from journeys.nlu.fragments import is_fragment
from journeys.nlu.naive_bayes import NaiveBayes, train
from journeys.nlu.small_talk import is_small_talk, without_opening_pleasantry
from journeys.nlu.text import tokens
from journeys.state import Intent

CUES_FILE = DATA_DIR / "intent_cues.json"
GOVERNOR_LEXICON_FILE = DATA_DIR / "governor_lexicon.json"  # its insult words
# Words that only aim an insult at someone: dropped with it.
_TARGET_WORDS = (
    "you u your ur are r is ni wewe nyinyi ninyi wote all guys people so such bunch "
    "of a an the kabisa sana na wa ya kwani aje mko sisi this shop bot msee mse buda "
    "bro bana manze"
)
INSULT_TARGETS = frozenset(_TARGET_WORDS.split())
SMALL_TALK_CONFIDENCE = 0.9  # a closed vocabulary: as sure as the clearest corpus matches
FRAGMENT_CONFIDENCE = 0.85  # "the second one": surely a reply that needs its context
SHARPNESS = 1.0  # chosen so wrong answers rarely clear the 0.70 routing bar
MIN_COVERAGE = 0.34  # fewer known words than this: we do not understand the message
UNSEEN_CONFIDENCE = 0.49
# Openers after which customers name a product ("nataka ...", "do you have ...").
PRODUCT_OPENERS = frozenset(
    (
        "i want", "i need", "i'm looking for", "looking for", "find me", "get me",
        "do you have", "do you sell", "nataka", "natafuta", "nahitaji", "ninahitaji",
        "mna", "mnauza", "mko na", "uko na", "niko na doh nataka",
    )
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class IntentResult:
    intent: Intent
    confidence: float
    scores: dict[str, float]


def build_model(examples: Iterable[Example]) -> NaiveBayes:
    """A model from any labelled examples; cross-validation trains one per fold."""
    return train(((ex.text, ex.intent) for ex in examples), sharpness=SHARPNESS)


@cache
def _model() -> NaiveBayes:
    return build_model(training_examples())


@cache
def _cues() -> tuple[float, dict[str, tuple[str, ...]]]:
    raw = json.loads(CUES_FILE.read_text(encoding="utf-8"))
    return float(raw["weight"]), {k: tuple(v) for k, v in raw["cues"].items()}


@cache
def _phrases() -> dict[str, tuple[str, ...]]:
    raw = json.loads(CUES_FILE.read_text(encoding="utf-8"))
    return {k: tuple(f" {p} " for p in v) for k, v in raw["phrases"].items()}


def _matches(word: str, cue: str) -> bool:
    """Whole word for short cues, prefix for four letters, inside the word beyond that."""
    if len(cue) <= 3:
        return word == cue
    return word.startswith(cue) if len(cue) == 4 else cue in word


@lru_cache(maxsize=4096)
def _word_cues(word: str) -> tuple[str, ...]:
    """The intents whose cue list matches this word (cached: words repeat a lot)."""
    _, cues = _cues()
    return tuple(intent for intent, found in cues.items() if any(_matches(word, c) for c in found))


def _cue_hits(words: list[str]) -> dict[str, int]:
    hits = dict.fromkeys(_cues()[1], 0)
    for word in words:
        for intent in _word_cues(word):
            hits[intent] += 1
    padded = f" {' '.join(words)} "
    for intent, phrases in _phrases().items():
        hits[intent] = hits.get(intent, 0) + sum(p in padded for p in phrases)
    return hits


def _product_slot(words: list[str]) -> list[str]:
    """The words of a request minus the product named after its opener.

    "nataka sukuma wiki", "I want the Pool Slide Navy": what follows "nataka" or "I want"
    is a product name only the shop's catalog knows. Those words must not count as
    parts of the message we don't understand, or every unfamiliar product would drop
    a plain request into the clarify band.
    """
    for size in (3, 2, 1):
        for start in range(min(2, len(words))):  # "hi, nataka...", "pls I want..."
            if " ".join(words[start : start + size]) in PRODUCT_OPENERS:
                return words[: start + size]
    return words


def _coverage(model: NaiveBayes, words: list[str]) -> float:
    """Share of words the corpus or the cue list knows (a named product aside)."""
    words = _product_slot(words)
    if not words:
        return 0.0
    known = sum(f"w:{w}" in model.vocabulary or bool(_word_cues(w)) for w in words)
    return known / len(words)


def _combine(nb: dict[str, float], hits: dict[str, int]) -> dict[str, float]:
    weight, _ = _cues()
    logits = {k: math.log(max(p, 1e-12)) + weight * hits.get(k, 0) for k, p in nb.items()}
    top = max(logits.values())
    exps = {k: math.exp(v - top) for k, v in logits.items()}
    total = sum(exps.values())
    return {k: v / total for k, v in exps.items()}


def classify_intent(text: str) -> IntentResult:
    return classify_with(_model(), text)


@cache
def _insults() -> tuple[frozenset[str], frozenset[str]]:
    """Insult words (the governor's list) and the words that only aim them ("you", "wewe")."""
    raw = json.loads(GOVERNOR_LEXICON_FILE.read_text(encoding="utf-8"))
    return frozenset(raw["abuse_words"]), INSULT_TARGETS


def _without_insults(words: list[str]) -> tuple[list[str], bool]:
    """The request inside an insult ("where is my order you idiots" -> "where is my order").

    The nlu_eval guide keeps the business intent of an abusive request (the governor
    flags the abuse); insult words would otherwise pull it towards spam_casual. Returns
    the words left and whether an insult was removed.
    """
    insults, targets = _insults()
    if not insults & set(words):
        return words, False
    # Drop each insult with the words that aim it ("you guys are clowns", "mjinga wewe").
    drop: set[int] = set()
    for i, word in enumerate(words):
        if word in insults:
            start, end = i, i + 1
            while start and words[start - 1] in targets | insults:
                start -= 1
            while end < len(words) and words[end] in targets | insults:
                end += 1
            drop.update(range(start, end))
    return [w for i, w in enumerate(words) if i not in drop], True


def classify_with(model: NaiveBayes, text: str) -> IntentResult:
    words, insulted = _without_insults(tokens(text))
    if insulted and not words:
        # An insult with no request is spam_casual (nlu_eval guide).
        share = SMALL_TALK_CONFIDENCE
        return IntentResult(intent="spam_casual", confidence=share, scores={"spam_casual": share})
    if is_small_talk(words):
        share = SMALL_TALK_CONFIDENCE
        return IntentResult(intent="spam_casual", confidence=share, scores={"spam_casual": share})
    words = without_opening_pleasantry(words)
    if is_fragment(words):
        share = FRAGMENT_CONFIDENCE
        return IntentResult(intent="unknown", confidence=share, scores={"unknown": share})
    coverage = _coverage(model, words)
    if coverage < MIN_COVERAGE:
        # Unfamiliar words may be gibberish (unknown) or off-topic chat (spam_casual) the
        # corpus never saw, so this lands in the SPEC's < 0.50 band: the unknown handler,
        # and in cascade mode a question to the LLM.
        confidence = round(UNSEEN_CONFIDENCE * (1 - coverage), 3)
        return IntentResult(intent="unknown", confidence=confidence, scores={})
    scores = _combine(model.scores(" ".join(words)), _cue_hits(words))
    best = max(scores, key=scores.__getitem__)
    # Damp confidence when part of the message is unfamiliar: the part we don't
    # understand may change its meaning.
    confidence = scores[best] * (0.55 + 0.45 * coverage)
    return IntentResult(intent=best, confidence=round(confidence, 3), scores=scores)  # type: ignore[arg-type]
