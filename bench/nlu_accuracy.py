"""Accuracy and latency of the deterministic NLU on the held-out set.

Run: .venv/bin/python bench/nlu_accuracy.py
Prints per-intent precision/recall/F1, intent and language accuracy, the SPEC §5.2
confidence bands, and per-message latency (p50/p99) of each classifier. No Django,
no network: these classifiers are pure Python.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from journeys.nlu.consent import detect_consent_command
from journeys.nlu.corpus import Example, governor_examples, heldout_examples, training_examples
from journeys.nlu.governor import classify_governor
from journeys.nlu.intent import classify_intent
from journeys.nlu.language import SWITCH_THRESHOLD, detect_language
from journeys.nodes.governance import GOVERNOR_THRESHOLD
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD, intent_band
from journeys.sanitize import sanitize_inbound
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

REPEATS = 20


def _prf(pairs: Sequence[tuple[str, str]], label: str) -> tuple[float, float, float, int]:
    tp = sum(gold == label and pred == label for gold, pred in pairs)
    predicted = sum(pred == label for _, pred in pairs)
    support = sum(gold == label for gold, _ in pairs)
    precision = tp / predicted if predicted else 0.0
    recall = tp / support if support else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, support


def report_intents(examples: tuple[Example, ...]) -> dict[str, float]:
    results = [(ex, classify_intent(ex.text)) for ex in examples]
    pairs: list[tuple[str, str]] = [(ex.intent, str(r.intent)) for ex, r in results]
    print(f"\nIntent (held-out n={len(examples)}, trained on {len(training_examples())})")
    print(f"{'intent':22} {'prec':>6} {'recall':>6} {'f1':>6} {'n':>4}")
    for label in INTENTS:
        p, r, f, n = _prf(pairs, label)
        print(f"{label:22} {p:6.2f} {r:6.2f} {f:6.2f} {n:4d}")
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    macro_f1 = statistics.mean(_prf(pairs, label)[2] for label in INTENTS)
    print(f"accuracy {accuracy:.3f}   macro-F1 {macro_f1:.3f}")
    bands: Counter[tuple[bool, str]] = Counter(
        (g == p, intent_band(r.confidence)) for (g, p), (_, r) in zip(pairs, results, strict=True)
    )
    for correct in (True, False):
        row = ", ".join(f"{b} {bands[(correct, b)]}" for b in ("route", "clarify", "unknown"))
        print(f"  {'correct' if correct else 'wrong  '} answers by band: {row}")
    return {"intent_accuracy": round(accuracy, 3), "intent_macro_f1": round(macro_f1, 3)}


def report_languages(examples: tuple[Example, ...]) -> dict[str, float]:
    pairs = [(ex.language, detect_language(ex.text).language) for ex in examples]
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    print(f"\nLanguage accuracy {accuracy:.3f}")
    for label in LANGS:
        p, r, f, n = _prf(pairs, label)
        print(f"  {label:6} prec {p:.2f} recall {r:.2f} f1 {f:.2f} n {n}")
    return {"language_accuracy": round(accuracy, 3)}


def report_governor() -> dict[str, float]:
    examples = governor_examples()
    pairs = [
        (ex.intent, classify_governor(ex.text, classify_intent(ex.text)).classification)
        for ex in examples
    ]
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    print(f"\nGovernor accuracy {accuracy:.3f} (n={len(examples)})")
    for label in GOVERNOR_CLASSES:
        p, r, f, n = _prf(pairs, label)
        print(f"  {label:8} prec {p:.2f} recall {r:.2f} f1 {f:.2f} n {n}")
    return {"governor_accuracy": round(accuracy, 3)}


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
    examples = heldout_examples()
    summary = report_intents(examples) | report_languages(examples) | report_governor()
    summary |= report_cascade_need(examples) | report_latency(examples)
    print(f"summary: {json.dumps(summary)}")


if __name__ == "__main__":
    main()
