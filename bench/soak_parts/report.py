"""The soak's printout: detailed lines, then the one `summary:` line `make bench` reads."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from soak_parts.faults import FaultPlan
from soak_parts.ledger import Accounts
from soak_parts.pss import PssWatch
from soak_parts.recovery import Recovery, as_dict
from soak_parts.traffic import Traffic


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


@dataclass
class Run:
    traffic: Traffic
    elapsed: float
    drained: float
    accounts: Accounts
    pss: PssWatch
    faults: FaultPlan
    tenants: int
    recoveries: list[Recovery]
    longest_wait_s: float


def figures(run: Run) -> dict[str, Any]:
    accounts, elapsed = run.accounts, run.elapsed
    latencies = [seconds * 1000 for seconds, _ in run.traffic.posts]
    return {
        "minutes": round(elapsed / 60, 1),
        "tenants": run.tenants,
        "customers": len(run.traffic.customers),
        "messages": accounts.accepted,
        "messages_per_s": round(accounts.accepted / elapsed, 2),
        "webhook_p99_ms": round(percentile(latencies, 0.99), 1),
        "turn_p50_ms": round(percentile(accounts.turn_ms, 0.50), 1),
        "turn_p99_ms": round(percentile(accounts.turn_ms, 0.99), 1),
        "turn_max_ms": round(max(accounts.turn_ms, default=0.0), 1),
        "longest_wait_s": run.longest_wait_s,
        "recovery": {r.fault: as_dict(r) for r in run.recoveries},
        "peak_pss_web_mb": run.pss.peaks.get("web"),
        "peak_pss_worker_mb": run.pss.peaks.get("worker"),
        "lost": accounts.lost,
        "duplicate_replies": accounts.duplicate_replies + accounts.duplicate_payment_messages,
        "cross_tenant_reads": accounts.cross_tenant_replies + accounts.cross_tenant_tool_calls,
        "payments": sum(accounts.payments.values()),
        "paid": accounts.payments.get("paid", 0),
        "tickets": accounts.tickets,
    }


def print_report(run: Run) -> bool:
    """Print everything; True when nothing was lost, duplicated or leaked."""
    found, accounts, traffic = figures(run), run.accounts, run.traffic
    statuses = Counter(status for _, status in traffic.posts)
    print(f"traffic: {found['minutes']} min, {found['customers']} customers of {run.tenants} shops")
    print(f"  webhooks posted {len(traffic.posts)} (with repeats), HTTP {dict(statuses)}")
    print(f"  webhook p99 {found['webhook_p99_ms']} ms; never accepted: {len(traffic.failures)}")
    print(f"faults (seconds into the run): {run.faults.events}")
    print(f"backlog drained {run.drained:.0f} s after the traffic stopped")
    print(f"messages accepted {accounts.accepted}, stored {accounts.stored}: {accounts.statuses}")
    print(f"  throughput {found['messages_per_s']} messages/s")
    print(
        f"  turn (stored → handled) p50 {found['turn_p50_ms']} ms, p99 {found['turn_p99_ms']} ms,"
        f" max {found['turn_max_ms']} ms"
    )
    print(f"  longest wait of any customer (stored → reply sent): {run.longest_wait_s} s")
    for r in run.recoveries:
        print(
            f"  after the {r.fault} fault: first turn {r.first_turn_s} s; {r.stranded} messages"
            f" pending at the fault, the last answered {r.stranded_answered_s} s after it;"
            f" {r.retried} of them in a turn the fault cut short, the last answered"
            f" {r.retried_answered_s} s after it (issue 21: <= 15 s)"
        )
    print(f"  replies per turn: {accounts.replies_per_turn}")
    print(f"payments by status: {accounts.payments}")
    print(f"handoff tickets {accounts.tickets}, agent replies {accounts.agent_replies}")
    for moment, trees in (("before", run.pss.before), ("after", run.pss.after)):
        for tree, processes in trees.items():
            total = round(sum(processes.values()), 1)
            print(f"PSS MB {moment} traffic, {tree} tree {total}: {processes}")
    for tree, processes in run.pss.after_uss.items():
        print(f"USS MB after traffic (held by that process alone), {tree} tree: {processes}")
    print(f"peak PSS MB per tree: {run.pss.peaks}")
    print(
        f"lost {accounts.lost}; duplicate replies {accounts.duplicate_replies}"
        f" (+{accounts.duplicate_payment_messages} payment messages); cross-tenant"
        f" {accounts.cross_tenant_replies} replies, {accounts.cross_tenant_tool_calls} tool calls"
    )
    print("summary: " + json.dumps(found))
    return not (found["lost"] or found["duplicate_replies"] or found["cross_tenant_reads"])
