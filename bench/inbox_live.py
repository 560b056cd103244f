"""Benchmark: the live inbox on the production stack (gunicorn sync workers).

A Kicks Nairobi customer asks for a person through the signed webhook and the demo agent
claims the ticket. Twenty inboxes are then open in Chromium (the agent's desk on that
conversation, the others on the queue and desk), each polling every 1.5 s. The customer
sends MESSAGES messages one after another; for each the script prints the webhook's
latency and the time from posting it to its bubble appearing on the open desk (seen by
a MutationObserver in the page, same machine clock). The webhook latency without any
inbox open is printed first as the baseline.

Environment knobs: BENCH_INBOX_MESSAGES (default 50), BENCH_INBOX_PAGES (default 20),
BENCH_WEB_WORKERS (default 4).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from typing import Any

from inbox_stack import customer_writes, running_stack, seed_waiting_customer, sign_in

MESSAGES = int(os.environ.get("BENCH_INBOX_MESSAGES", "50"))
PAGES = int(os.environ.get("BENCH_INBOX_PAGES", "20"))
WEB_WORKERS = os.environ.get("BENCH_WEB_WORKERS", "4")
BASELINE = 20
SCREEN_TIMEOUT = 15.0
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]
# Records, in epoch milliseconds, when each "bench <n>" bubble first shows on the desk.
WATCH = """() => {
  window.__seen = {};
  const mark = () => document.querySelectorAll('.inbox-customer .inbox-text').forEach(el => {
    const m = /bench (\\d+)/.exec(el.textContent);
    if (m && !(m[1] in window.__seen)) window.__seen[m[1]] = Date.now();
  });
  new MutationObserver(mark).observe(document.body, {childList: true, subtree: true});
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def claim(customer: str, ticket: int) -> None:
    from django.contrib.auth import get_user_model
    from inbox_stack import AGENT, kicks

    from tenants.models import Tenant
    from tulia.handoff import desk

    tenant = Tenant.objects.get(slug=kicks().slug)
    desk.claim(tenant.id, ticket, get_user_model().objects.get(username=AGENT).pk)


def open_inboxes(browser: Any, base_url: str, ticket: int) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    desk = context.new_page()
    sign_in(desk, base_url)
    desk_url = f"{base_url}/admin/handoff/handoffticket/{ticket}/desk/"
    desk.goto(desk_url)
    desk.evaluate(WATCH)
    for n in range(1, PAGES):
        other = context.new_page()
        other.goto(desk_url if n % 2 else f"{base_url}/admin/handoff/handoffticket/")
    desk.bring_to_front()  # the agent is looking at this one; the others poll behind it
    return context, desk


def seen_at(desk: Any, n: int) -> float | None:
    deadline = time.monotonic() + SCREEN_TIMEOUT
    while time.monotonic() < deadline:
        found = desk.evaluate(f"() => window.__seen['{n}'] || null")
        if found:
            return float(found) / 1000
        desk.wait_for_timeout(20)
    return None


def run(base_url: str, customer: str, desk: Any) -> tuple[list[float], list[float], int]:
    webhook, screen, missed = [], [], 0
    for n in range(MESSAGES):
        posted = time.time()
        webhook.append(customer_writes(base_url, customer, f"bench {n}") * 1000)
        shown = seen_at(desk, n)
        if shown is None:
            missed += 1
        else:
            screen.append((shown - posted) * 1000)
    return webhook, screen, missed


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: p50 {percentile(values, 0.5):.0f} ms, p95 {percentile(values, 0.95):.0f} ms,"
        f" max {max(values, default=0):.0f} ms, mean {statistics.fmean(values or [0]):.0f} ms"
    )


def main() -> int:
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM next to Playwright
    from playwright.sync_api import sync_playwright

    with running_stack(WEB_WORKERS) as stack:
        customer, ticket = seed_waiting_customer(stack.base_url)
        claim(customer, ticket)
        alone = [customer_writes(stack.base_url, customer, "baseline") * 1000]
        alone += [customer_writes(stack.base_url, customer, "baseline") * 1000
                  for _ in range(BASELINE - 1)]  # fmt: skip
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            context, desk = open_inboxes(browser, stack.base_url, ticket)
            webhook, screen, missed = run(stack.base_url, customer, desk)
            context.close()
            browser.close()
    print(f"gunicorn sync workers: {WEB_WORKERS}; inboxes open: {PAGES}; messages: {MESSAGES}")
    print(summary("webhook latency, no inbox open", alone))
    print(summary(f"webhook latency, {PAGES} inboxes polling", webhook))
    print(summary("webhook -> agent's screen", screen) + f"; not shown within 15 s: {missed}")
    figures = {
        "webhook_p50_ms_alone": round(percentile(alone, 0.5)),
        "webhook_p50_ms": round(percentile(webhook, 0.5)),
        "webhook_p95_ms": round(percentile(webhook, 0.95)),
        "webhook_max_ms": round(max(webhook, default=0)),
        "screen_p50_ms": round(percentile(screen, 0.5)),
        "screen_p95_ms": round(percentile(screen, 0.95)),
        "not_shown": missed,
    }
    print("summary: " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
