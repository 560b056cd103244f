"""Real public text nobody here wrote or trained on: BANKING77's test split, mapped to our
intents (journeys/nlu/data/banking77_map.json; the model trains on the train split only).

Run: .venv/bin/python bench/nlu_public.py   (bench/nlu.py prints it too)
Prints intent accuracy, English-as-`en` share, a reliability table (calibrated
confidence bin -> share correct), the share of messages above each SPEC §5.2 threshold
(0.70 route / 0.50 clarify for intent, 0.75 language switch), the share correct among
those routed, how often the offline default would ask a clarifying question (intent
confidence in [0.50, 0.70)) or fall to the unknown handler (< 0.50), and latency.
Needs ../shared/corpora/banking77 (TULIA_CORPORA overrides); no Django, no network.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from journeys.nlu.labelled import Predicted, graph_pass
from journeys.nlu.language import SWITCH_THRESHOLD
from journeys.nlu.sources import banking77_split
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD

CLARIFY_THRESHOLD = 0.50  # SPEC §5.2: 0.50-0.70 asks a clarifying question
BINS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)
ECE_BINS = 10
# The floor to beat: nine keyword patterns, first match wins, else unknown. Written once
# from the intent names, never fitted to any set.
KEYWORD_FLOOR = (
    ("human_request", r"\b(human|person|agent|someone|call me|manager)\b"),
    ("preferences_consent", r"\b(stop|unsubscribe|opt|delete|details|language)\b"),
    ("order_status", r"\b(order|arrive|arrived|delivered|track|refund|return)\b"),
    ("payment_help", r"\b(pay|paid|payment|charged?|mpesa|card|transfer|top.?up)\b"),
    ("discounts_offers", r"\b(discount|offer|coupon|promo|code|sale|cheaper)\b"),
    ("product_question", r"\b(price|cost|how much|size|colou?r|original|warranty)\b"),
    ("support_question", r"\b(deliver|delivery|open|hours|where|policy|how do i|help)\b"),
    ("sales_discovery", r"\b(want|buy|need|looking for|have|sell|get)\b"),
    ("spam_casual", r"\b(hi|hello|thanks?|bye|lol|win|free)\b"),
)


def reliability(
    confidences: Sequence[float], hits: Sequence[bool]
) -> list[tuple[str, int, float, float]]:
    """(bin, n, mean confidence, share correct) per confidence bin."""
    rows = []
    for lo, hi in pairwise(BINS):
        inside = [(c, h) for c, h in zip(confidences, hits, strict=True) if lo <= c < hi]
        if inside:
            mean_conf = sum(c for c, _ in inside) / len(inside)
            rows.append(
                (
                    f"{lo:.1f}-{min(hi, 1.0):.1f}",
                    len(inside),
                    mean_conf,
                    sum(h for _, h in inside) / len(inside),
                )
            )
    return rows


def print_reliability(title: str, confidences: Sequence[float], hits: Sequence[bool]) -> None:
    print(f"  reliability ({title}): bin, n, mean confidence, share correct")
    for label, n, conf, share in reliability(confidences, hits):
        print(f"    {label:8} {n:5d}  {conf:5.2f}  {share:5.3f}")


def expected_calibration_error(confidences: Sequence[float], hits: Sequence[bool]) -> float:
    """Mean |confidence - share correct| over ten equal-width bins, weighted by size."""
    total, n = 0.0, len(confidences)
    for b in range(ECE_BINS):
        lo, hi = b / ECE_BINS, (b + 1) / ECE_BINS
        inside = [
            (c, h) for c, h in zip(confidences, hits, strict=True)
            if lo <= c < hi or (b == ECE_BINS - 1 and c == 1.0)
        ]  # fmt: skip
        if inside:
            gap = sum(c for c, _ in inside) / len(inside) - sum(h for _, h in inside) / len(inside)
            total += len(inside) / n * abs(gap)
    return total


def macro_f1(golds: Sequence[str], preds: Sequence[str]) -> float:
    """Mean F1 over the gold labels present."""
    f1s = []
    for label in sorted(set(golds)):
        tp = sum(g == p == label for g, p in zip(golds, preds, strict=True))
        fp = sum(p == label != g for g, p in zip(golds, preds, strict=True))
        fn = sum(g == label != p for g, p in zip(golds, preds, strict=True))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(f1s) / len(f1s)


def keyword_floor(text: str) -> str:
    folded = text.lower()
    return next((i for i, pattern in KEYWORD_FLOOR if re.search(pattern, folded)), "unknown")


def report(golds: Sequence[str], predicted: Sequence[Predicted]) -> dict[str, float]:
    n = len(golds)
    hits = [p.intent == g for p, g in zip(predicted, golds, strict=True)]
    conf = [p.intent_confidence for p in predicted]
    routed = [h for h, c in zip(hits, conf, strict=True) if c >= INTENT_ROUTE_THRESHOLD]
    clarify = sum(CLARIFY_THRESHOLD <= c < INTENT_ROUTE_THRESHOLD for c in conf) / n
    unknown = sum(c < CLARIFY_THRESHOLD for c in conf) / n
    en = [p.language == "en" for p in predicted]
    switch = sum(p.language_confidence >= SWITCH_THRESHOLD for p in predicted) / n
    business = sum(p.governor == "business" for p in predicted) / n
    figures = {
        "b77_intent_accuracy": sum(hits) / n,
        "b77_intent_macro_f1": macro_f1(golds, [p.intent for p in predicted]),
        "b77_intent_ece": expected_calibration_error(conf, hits),
        "b77_share_intent_ge_070": len(routed) / n,
        "b77_precision_intent_ge_070": sum(routed) / len(routed) if routed else 0.0,
        "b77_share_intent_ge_050": sum(c >= CLARIFY_THRESHOLD for c in conf) / n,
        "b77_clarify_share": clarify,
        "b77_unknown_handler_share": unknown,
        "b77_language_en": sum(en) / n,
        "b77_language_ge_075": switch,
        "b77_governor_business": business,
    }
    print(f"\nBANKING77 test split, mapped to our intents (n={n}, real text, never trained on)")
    for key, value in figures.items():
        print(f"  {key:32} {value:.3f}")
    print_reliability("intent", conf, hits)
    print_reliability("language", [p.language_confidence for p in predicted], en)
    return {k: round(v, 3) for k, v in figures.items()}


def main() -> dict[str, float]:
    rows = banking77_split("test")
    if not rows:
        print("\nBANKING77 test split not found under ../shared/corpora: skipped")
        return {}
    graph_pass(rows[0][0])  # load the model outside the timings
    start = time.perf_counter()
    predicted = [graph_pass(text) for text, _ in rows]
    per_message = (time.perf_counter() - start) * 1000 / len(rows)
    golds = [intent for _, intent in rows]
    figures = report(golds, predicted)
    print(f"  mean graph pass {per_message:.2f} ms per message")
    floor = [keyword_floor(text) for text, _ in rows]
    figures["b77_keyword_floor_accuracy"] = round(
        sum(f == g for f, g in zip(floor, golds, strict=True)) / len(golds), 3
    )
    figures["b77_keyword_floor_macro_f1"] = round(macro_f1(golds, floor), 3)
    print(f"  keyword floor (9 patterns): accuracy {figures['b77_keyword_floor_accuracy']:.3f}, "
          f"macro-F1 {figures['b77_keyword_floor_macro_f1']:.3f}")  # fmt: skip
    return figures


if __name__ == "__main__":
    print(f"summary: {json.dumps(main())}")
