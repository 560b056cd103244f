"""The benchmark's figures: per-journey/language/shop tables, headline numbers, targets."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable

from turns_parts.driver import TurnRecord, WorkerResult

TARGETS = {"p50_ms": 30.0, "p99_ms": 100.0, "median_queries": 10, "p99_queries": 20,
           "llm_calls_per_turn": 0.35}  # fmt: skip


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def group_table(records: list[TurnRecord], key: Callable[[TurnRecord], str]) -> None:
    groups: dict[str, list[TurnRecord]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    print(f"  {'':12} {'turns':>6} {'p50 ms':>7} {'p99 ms':>7} {'cpu ms':>7} {'q med':>6} "
          f"{'q p99':>6} {'llm/t':>6}")  # fmt: skip
    for name, rows in sorted(groups.items()):
        wall = [r.wall_ms for r in rows]
        queries = [float(r.queries) for r in rows]
        print(
            f"  {name:12} {len(rows):>6} {percentile(wall, 0.5):>7.1f} "
            f"{percentile(wall, 0.99):>7.1f} {statistics.mean(r.cpu_ms for r in rows):>7.1f} "
            f"{statistics.median(queries):>6.0f} {percentile(queries, 0.99):>6.0f} "
            f"{statistics.mean(r.llm_calls for r in rows):>6.2f}"
        )


def figures(results: list[WorkerResult]) -> dict[str, float]:
    records = [r for result in results for r in result.records]
    wall = [r.wall_ms for r in records]
    cpu = [r.cpu_ms for r in records]
    classify = [r.classify_ms for r in records]
    outside = [r.wall_ms - r.classify_ms for r in records]
    queries = [float(r.queries) for r in records]
    elapsed = max(r.finished for r in results) - min(r.started for r in results)
    return {
        "turns": len(records),
        "replied": sum(r.replied for r in records),
        "p50_ms": round(percentile(wall, 0.5), 1),
        "p99_ms": round(percentile(wall, 0.99), 1),
        "classify_p50_ms": round(percentile(classify, 0.5), 2),
        "classify_p99_ms": round(percentile(classify, 0.99), 2),
        "outside_p50_ms": round(percentile(outside, 0.5), 1),
        "outside_p99_ms": round(percentile(outside, 0.99), 1),
        "cpu_p50_ms": round(percentile(cpu, 0.5), 1),
        "cpu_p99_ms": round(percentile(cpu, 0.99), 1),
        "cpu_mean_ms": round(statistics.mean(cpu), 1),
        "turns_per_s": round(len(records) / elapsed, 1),
        "median_queries": statistics.median(queries),
        "p99_queries": percentile(queries, 0.99),
        "llm_calls_per_turn": round(statistics.mean(r.llm_calls for r in records), 3),
        "payments": sum(r.payments for r in results),
        "paid": sum(r.paid for r in results),
    }


def report(mode: str, results: list[WorkerResult], workers: int) -> dict[str, float]:
    records = [r for result in results for r in result.records]
    shown = figures(results)
    print(f"\n--- {mode}: {shown['turns']} turns, {workers} worker processes")
    print("by journey:")
    group_table(records, lambda r: r.journey)
    print("by language:")
    group_table(records, lambda r: r.lang)
    print("by shop:")
    group_table(records, lambda r: r.shop)
    print(
        f"latency per turn: p50 {shown['p50_ms']} ms, p99 {shown['p99_ms']} ms "
        f"(targets {TARGETS['p50_ms']:.0f} / {TARGETS['p99_ms']:.0f})"
    )
    print(
        f"  of which classifier nodes: p50 {shown['classify_p50_ms']} ms, p99 "
        f"{shown['classify_p99_ms']} ms; outside them: p50 {shown['outside_p50_ms']} ms, "
        f"p99 {shown['outside_p99_ms']} ms"
    )
    print(
        f"CPU per turn: p50 {shown['cpu_p50_ms']} ms, p99 {shown['cpu_p99_ms']} ms, "
        f"mean {shown['cpu_mean_ms']} ms"
    )
    print(f"throughput: {shown['turns_per_s']} turns/s")
    print(
        f"queries per turn: median {shown['median_queries']}, p99 {shown['p99_queries']} "
        f"(targets median <= {TARGETS['median_queries']}, p99 <= {TARGETS['p99_queries']})"
    )
    print(f"LLM calls per turn: {shown['llm_calls_per_turn']}")
    print(f"replied turns: {shown['replied']}; STK payments {shown['payments']}, "
          f"paid by callback {shown['paid']}")  # fmt: skip
    return shown


def summary(shown: dict[str, dict[str, float]]) -> dict[str, float]:
    """Headline figures: latency and queries from the deterministic run when there is one."""
    main_run = shown.get("deterministic") or shown["cascade"]
    keys = ("turns", "p50_ms", "p99_ms", "classify_p50_ms", "outside_p50_ms", "outside_p99_ms",
            "cpu_p50_ms", "turns_per_s", "median_queries", "p99_queries")  # fmt: skip
    headline = {key: main_run[key] for key in keys}
    if "cascade" in shown:
        headline["llm_calls_per_turn"] = shown["cascade"]["llm_calls_per_turn"]
        headline["cascade_p50_ms"] = shown["cascade"]["p50_ms"]
        for key in ("llm_dollars_per_1000_conversations", "llm_dollars_per_shop_month"):
            headline[key] = shown["cascade"][key]
    headline["paid"] = main_run["paid"]
    return headline


def worst_turns(results: list[WorkerResult], shown: int) -> None:
    """The turns with most queries and their SQL (first 110 characters of each)."""
    turns = sorted((t for result in results for t in result.worst), reverse=True)[:shown]
    for turn in turns:
        print(f"\n{turn.queries} queries: {turn.journey} -> {turn.step} ({turn.text!r})")
        for n, sql in enumerate(turn.sql, 1):
            print(f"  {n:>2} {' '.join(sql.split())[:110]}")
