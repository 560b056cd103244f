"""Prometheus metrics, shared by gunicorn workers and Celery processes.

With PROMETHEUS_MULTIPROC_DIR set (the launcher and the container set it), every process
writes its samples to that folder and /metrics aggregates them; without it, the
in-process registry is served (tests, a single runserver).
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client import REGISTRY as DEFAULT_REGISTRY

MESSAGES_IN = Counter(
    "tulia_messages_in_total", "Inbound WhatsApp messages accepted", ["tenant", "kind"]
)
MESSAGES_OUT = Counter(
    "tulia_messages_out_total",
    "Outbound WhatsApp message parts by final status",
    ["tenant", "status"],
)
TURNS = Counter("tulia_turns_total", "Conversation turns processed", ["tenant", "outcome"])
TURN_SECONDS = Histogram(
    "tulia_turn_seconds",
    "Time to process one conversation turn",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
LLM_CALLS = Counter(
    "tulia_llm_calls_total", "LLM calls by node and outcome", ["tenant", "node", "outcome"]
)
LLM_TOKENS = Counter("tulia_llm_tokens_total", "LLM tokens used", ["tenant", "direction"])
TOOL_CALLS = Counter("tulia_tool_calls_total", "Tool calls by outcome", ["tool", "outcome"])
TOOL_SECONDS = Histogram(
    "tulia_tool_seconds",
    "Tool call duration",
    ["tool"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5),
)
PAYMENT_OUTCOMES = Counter(
    "tulia_payment_outcomes_total", "Payment attempts by final outcome", ["provider", "outcome"]
)
RATE_LIMITED = Counter(
    "tulia_rate_limited_total", "Messages refused by a rate limit", ["tenant", "scope"]
)


def render() -> tuple[bytes, str]:
    """The exposition text for /metrics and its content type.

    The per-process samples (this process's registry, or every process's files in
    multiprocess mode) plus the gauges read live at scrape time.
    """
    from tulia.observability.gauges import ScrapeTimeCollector  # needs Django models

    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(DEFAULT_REGISTRY)
    registry.register(ScrapeTimeCollector())
    return generate_latest(registry), CONTENT_TYPE_LATEST
