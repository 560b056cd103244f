"""Intent, language and governor accuracy on the independent evaluation set.

Run: .venv/bin/python bench/nlu.py [labelled.tsv]
The set (bench/nlu_eval/messages.tsv, labelling guide alongside) was written apart from
the training corpus and is never trained on, so these figures estimate how the
deterministic classifiers do on messages nobody tuned them for. Each message goes
through the classifiers the way the graph sends it: sanitised, consent commands
short-circuiting to `preferences_consent`, then intent, language and governor. For each
classifier the bench prints accuracy, per-class precision/recall/F1, macro F1, the
commonest confusions, accuracy by language and latency. No Django, no network.
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

from journeys.nlu.governor import classify_governor
from journeys.nlu.intent import classify_intent
from journeys.nlu.labelled import graph_pass, load_set
from journeys.nlu.language import detect_language
from journeys.nlu.scoring import prf
from journeys.state import GOVERNOR_CLASSES, INTENTS, LANGS

EVAL_SET = Path(__file__).resolve().parent / "nlu_eval" / "messages.tsv"
TARGETS = {"intent": 0.90, "language": 0.95, "governor": 0.90}
REPEATS = 5
TOP_CONFUSIONS = 10


def _print_per_class(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> float:
    print(f"  {'class':22} {'prec':>6} {'recall':>6} {'f1':>6} {'n':>4}")
    f1s = []
    for label in labels:
        p, r, f, n = prf(pairs, label)
        f1s.append(f)
        print(f"  {label:22} {p:6.2f} {r:6.2f} {f:6.2f} {n:4d}")
    return statistics.mean(f1s)


def _print_confusions(pairs: Sequence[tuple[str, str]]) -> None:
    wrong = Counter((gold, pred) for gold, pred in pairs if gold != pred)
    print(f"  top {TOP_CONFUSIONS} confusions (gold -> predicted):")
    for (gold, pred), n in wrong.most_common(TOP_CONFUSIONS):
        print(f"    {n:4d}  {gold} -> {pred}")


def _print_by_language(pairs: Sequence[tuple[str, str]], langs: Sequence[str]) -> None:
    row = []
    for lang in LANGS:
        hits = [g == p for (g, p), lg in zip(pairs, langs, strict=True) if lg == lang]
        row.append(f"{lang} {sum(hits) / len(hits):.3f} (n={len(hits)})" if hits else f"{lang} -")
    print("  accuracy by language: " + ", ".join(row))


def report(
    name: str, pairs: list[tuple[str, str]], labels: Sequence[str], langs: list[str]
) -> dict[str, float]:
    accuracy = sum(g == p for g, p in pairs) / len(pairs)
    target = TARGETS[name]
    verdict = "met" if accuracy >= target else "NOT met"
    print(f"\n{name}: accuracy {accuracy:.3f} (target {target:.2f}, {verdict}), n={len(pairs)}")
    macro_f1 = _print_per_class(pairs, labels)
    print(f"  macro-F1 {macro_f1:.3f}")
    _print_confusions(pairs)
    _print_by_language(pairs, langs)
    return {f"{name}_accuracy": round(accuracy, 3), f"{name}_macro_f1": round(macro_f1, 3)}


def _latency(name: str, fn: Callable[[str], object], texts: list[str]) -> tuple[float, float]:
    samples = []
    for _ in range(REPEATS):
        for text in texts:
            start = time.perf_counter()
            fn(text)
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p50, p99 = samples[len(samples) // 2], samples[int(len(samples) * 0.99)]
    print(f"  {name:26} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")
    return p50, p99


def report_latency(texts: list[str]) -> dict[str, float]:
    print(f"\nLatency per message ({REPEATS} passes over {len(texts)} messages)")
    _latency("classify_intent", classify_intent, texts)
    _latency("detect_language", detect_language, texts)
    _latency("classify_governor", lambda t: classify_governor(t, classify_intent(t)), texts)
    p50, p99 = _latency("whole graph pass", graph_pass, texts)
    return {"nlu_eval_p50_ms": round(p50, 3), "nlu_eval_p99_ms": round(p99, 3)}


def main() -> None:
    # Another labelled file of the same layout (the dev set journeys/nlu/data/dev4.tsv)
    # may be named on the command line; the targets are judged on the evaluation set.
    examples = load_set(Path(sys.argv[1]) if len(sys.argv) > 1 else EVAL_SET)
    graph_pass(examples[0].text)  # build models and lexicons outside the timings
    predicted = [graph_pass(ex.text) for ex in examples]
    langs = [ex.language for ex in examples]
    shortcuts = sum(p.consent_shortcut for p in predicted)
    print(f"NLU evaluation set: {len(examples)} messages; consent shortcut taken on {shortcuts}")
    figures: dict[str, float] = {}
    for name, labels in (("intent", INTENTS), ("language", LANGS), ("governor", GOVERNOR_CLASSES)):
        pairs = [
            (getattr(ex, name), getattr(p, name)) for ex, p in zip(examples, predicted, strict=True)
        ]
        figures |= report(name, pairs, labels, langs)
    figures |= report_latency([ex.text for ex in examples])
    met = all(figures[f"{name}_accuracy"] >= floor for name, floor in TARGETS.items())
    print(f"summary: {json.dumps({'n': len(examples), **figures, 'targets_met': met})}")


if __name__ == "__main__":
    main()
