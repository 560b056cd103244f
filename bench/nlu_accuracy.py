"""Accuracy and latency of the deterministic NLU on the held-out sets and by k-fold CV.

Run: .venv/bin/python bench/nlu_accuracy.py
Prints per-intent precision/recall/F1, intent and language accuracy, the SPEC §5.2
confidence bands, and per-message latency (p50/p99) of each classifier, for the first
held-out set and for dev2 (written before the 2026-11 tuning round), then 5-fold
cross-validation on the training corpus and the time to build the models. No Django,
no network: these classifiers are pure Python.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from journeys.nlu.consent import detect_consent_command
from journeys.nlu.corpus import (
    Example,
    dev2_examples,
    dev3_examples,
    governor_dev2_examples,
    governor_dev3_examples,
    governor_examples,
    heldout_examples,
    training_examples,
)
from journeys.nlu.crossval import cross_validate
from journeys.nlu.governor import GOVERNOR_THRESHOLD, classify_governor
from journeys.nlu.intent import build_model, classify_intent
from journeys.nlu.language import SWITCH_THRESHOLD, build_lexicon, detect_language
from journeys.nlu.scoring import prf
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD, intent_band
from journeys.sanitize import sanitize_inbound
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

REPEATS = 20


def report_intents(examples: tuple[Example, ...], name: str) -> dict[str, float]:
    results = [(ex, classify_intent(ex.text)) for ex in examples]
    pairs: list[tuple[str, str]] = [(ex.intent, str(r.intent)) for ex, r in results]
    print(f"\nIntent ({name} n={len(examples)}, trained on {len(training_examples())})")
    print(f"{'intent':22} {'prec':>6} {'recall':>6} {'f1':>6} {'n':>4}")
    for label in INTENTS:
        p, r, f, n = prf(pairs, label)
        print(f"{label:22} {p:6.2f} {r:6.2f} {f:6.2f} {n:4d}")
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    macro_f1 = statistics.mean(prf(pairs, label)[2] for label in INTENTS)
    print(f"accuracy {accuracy:.3f}   macro-F1 {macro_f1:.3f}")
    bands: Counter[tuple[bool, str]] = Counter(
        (g == p, intent_band(r.confidence)) for (g, p), (_, r) in zip(pairs, results, strict=True)
    )
    for correct in (True, False):
        row = ", ".join(f"{b} {bands[(correct, b)]}" for b in ("route", "clarify", "unknown"))
        print(f"  {'correct' if correct else 'wrong  '} answers by band: {row}")
    return {f"{name}_intent_accuracy": round(accuracy, 3), f"{name}_macro_f1": round(macro_f1, 3)}


def report_languages(examples: tuple[Example, ...], name: str) -> dict[str, float]:
    pairs = [(ex.language, detect_language(ex.text).language) for ex in examples]
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    print(f"\nLanguage accuracy ({name}) {accuracy:.3f}")
    for label in LANGS:
        p, r, f, n = prf(pairs, label)
        print(f"  {label:6} prec {p:.2f} recall {r:.2f} f1 {f:.2f} n {n}")
    return {f"{name}_language_accuracy": round(accuracy, 3)}


def report_governor(examples: tuple[Example, ...], name: str) -> dict[str, float]:
    pairs = [
        (ex.intent, classify_governor(ex.text, classify_intent(ex.text)).classification)
        for ex in examples
    ]
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    print(f"\nGovernor accuracy ({name}) {accuracy:.3f} (n={len(examples)})")
    for label in GOVERNOR_CLASSES:
        p, r, f, n = prf(pairs, label)
        print(f"  {label:8} prec {p:.2f} recall {r:.2f} f1 {f:.2f} n {n}")
    return {f"{name}_governor_accuracy": round(accuracy, 3)}


def report_cross_validation(k: int = 5) -> dict[str, float]:
    scores = cross_validate(training_examples(), k)
    print(f"\n{k}-fold cross-validation on the training corpus (n={len(training_examples())})")
    print(f"  intent {scores.intent_accuracy:.3f}   language {scores.language_accuracy:.3f}")
    return {
        "cv_intent_accuracy": round(scores.intent_accuracy, 3),
        "cv_language_accuracy": round(scores.language_accuracy, 3),
    }


def report_build_time() -> dict[str, float]:
    """Time to build the intent model and the language lexicon from the corpus.

    Both are built lazily on the first message a process classifies, so this is the
    one-off cost a worker pays after start-up (the modules themselves load no data).
    """
    start = time.perf_counter()
    build_model(training_examples())
    build_lexicon(training_examples())
    ms = (time.perf_counter() - start) * 1000
    print(f"\nModel and lexicon build from the corpus: {ms:.0f} ms")
    return {"build_ms": round(ms)}


def report_cascade_need(examples: tuple[Example, ...]) -> dict[str, float]:
    """How often cascade mode would ask the LLM: deterministic confidence under threshold."""
    below = Counter[str]()
    for ex in examples:
        intent = classify_intent(ex.text)
        below["intent"] += intent.confidence < INTENT_ROUTE_THRESHOLD
        below["language"] += detect_language(ex.text).confidence < SWITCH_THRESHOLD
        governor = classify_governor(ex.text, intent)
        below["governor"] += governor.confidence < GOVERNOR_THRESHOLD
    per_message = sum(below.values()) / len(examples)
    print("\nCascade mode: share of messages below each node's threshold (LLM would be asked)")
    for node in ("intent", "language", "governor"):
        print(f"  {node:9} {below[node] / len(examples):.3f}")
    print(f"  upper bound on LLM calls per message: {per_message:.3f}")
    return {"llm_calls_per_message_upper_bound": round(per_message, 3)}


def _latency(name: str, fn: Callable[[str], object], texts: list[str]) -> tuple[float, float]:
    samples = []
    for _ in range(REPEATS):
        for text in texts:
            start = time.perf_counter()
            fn(text)
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p50 = samples[len(samples) // 2]
    p99 = samples[int(len(samples) * 0.99)]
    print(f"  {name:26} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
    return p50, p99


def _pipeline(text: str) -> None:
    clean = sanitize_inbound(text).text
    if detect_consent_command(clean) is None:
        intent = classify_intent(clean)
        detect_language(clean)
        classify_governor(clean, intent)


def report_latency(examples: tuple[Example, ...]) -> dict[str, float]:
    texts = [ex.text for ex in examples]
    _pipeline(texts[0])  # build models and lexicons outside the timings
    print(f"\nLatency per message ({REPEATS} passes over {len(texts)} messages)")
    _latency("sanitize_inbound", sanitize_inbound, texts)
    _latency("detect_consent_command", detect_consent_command, texts)
    _latency("classify_intent", classify_intent, texts)
    _latency("detect_language", detect_language, texts)
    _latency("classify_governor", lambda t: classify_governor(t, classify_intent(t)), texts)
    p50, p99 = _latency("whole deterministic pass", _pipeline, texts)
    return {"nlu_p50_ms": round(p50, 3), "nlu_p99_ms": round(p99, 3)}


def main() -> None:
    examples, dev2 = heldout_examples(), dev2_examples()
    summary = report_intents(examples, "heldout") | report_languages(examples, "heldout")
    summary |= report_governor(governor_examples(), "heldout")
    summary |= report_intents(dev2, "dev2") | report_languages(dev2, "dev2")
    summary |= report_governor(governor_dev2_examples(), "dev2")
    dev3 = dev3_examples()
    summary |= report_intents(dev3, "dev3") | report_languages(dev3, "dev3")
    summary |= report_governor(governor_dev3_examples(), "dev3")
    summary |= report_cross_validation() | report_build_time()
    summary |= report_cascade_need(examples + dev2) | report_latency(examples + dev2)
    print(f"summary: {json.dumps(summary)}")


if __name__ == "__main__":
    main()
