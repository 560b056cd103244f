"""Gauges computed when /metrics is scraped: Celery queue depth and the handoff queue.

They describe shared state (the broker's lists, the tickets table), not anything one
process did, so they are read live by the scraping process instead of being set by
the workers. That also makes them correct in multiprocess mode, where a gauge set in
one worker would be summed or shadowed across processes.

A failing source drops its gauge from that scrape (and logs why) rather than failing
the whole scrape: the counters stay readable while Redis or PostgreSQL is down.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from redis.exceptions import RedisError

from tulia.redis_client import client_for

logger = logging.getLogger(__name__)
# kombu's Redis transport keeps priorities 3, 6 and 9 in sibling lists named
# "<queue>\x06\x16<priority>"; priority 0 is the queue's own list.
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITY_STEPS = (3, 6, 9)


def celery_queue_names() -> list[str]:
    """The queues our workers consume: the default one plus any declared or routed."""
    from tulia.celery import app

    names = {app.conf.task_default_queue}
    names.update(queue.name for queue in app.conf.task_queues or ())
    routes = app.conf.task_routes
    if isinstance(routes, dict):
        names.update(route["queue"] for route in routes.values() if "queue" in route)
    return sorted(name for name in names if name)


def broker_url() -> str:
    """The broker as redis-py spells it (kombu writes a socket as redis+socket://)."""
    url = str(settings.CELERY_BROKER_URL)
    if url.startswith("redis+socket://"):
        return "unix://" + url.removeprefix("redis+socket://")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError("queue depth is read from a Redis broker only")
    return url


def queue_depths() -> dict[str, int]:
    """Messages waiting in each Celery queue (all priority lists), not yet taken."""
    client = client_for(broker_url())
    pipe = client.pipeline(transaction=False)
    names = celery_queue_names()
    for name in names:
        pipe.llen(name)
        for step in _PRIORITY_STEPS:
            pipe.llen(f"{name}{_PRIORITY_SEPARATOR}{step}")
    lengths = pipe.execute()
    per_queue = 1 + len(_PRIORITY_STEPS)
    return {name: sum(lengths[i * per_queue : (i + 1) * per_queue]) for i, name in enumerate(names)}


def handoff_waiting() -> dict[str, int]:
    """Unclaimed handoff tickets per active tenant (0 included), keyed by tenant id."""
    from tenants.context import operator_context
    from tenants.models import Tenant
    from tulia.handoff.models import HandoffTicket, TicketStatus

    with operator_context("metrics: handoff queue length across tenants"):
        waiting = dict(
            HandoffTicket.objects.filter(status=TicketStatus.OPEN)
            .values("tenant_id")
            .annotate(n=Count("id"))
            .values_list("tenant_id", "n")
        )
        tenant_ids = Tenant.objects.filter(status=Tenant.Status.ACTIVE).values_list("pk", flat=True)
        return {str(pk): int(waiting.get(pk, 0)) for pk in tenant_ids}


class ScrapeTimeCollector(Collector):
    """Registered on the registry that /metrics renders, never on a worker's."""

    def collect(self) -> Iterator[Metric]:
        yield from self._queues()
        yield from self._handoff()

    def _queues(self) -> Iterator[Metric]:
        try:
            depths = queue_depths()
        except (RedisError, ValueError) as exc:
            logger.warning("celery queue depth unavailable: %s", exc)
            return
        family = GaugeMetricFamily(
            "tulia_celery_queue_length", "Tasks waiting in a Celery queue", labels=["queue"]
        )
        for name, depth in depths.items():
            family.add_metric([name], depth)
        yield family

    def _handoff(self) -> Iterator[Metric]:
        try:
            waiting = handoff_waiting()
        except DatabaseError as exc:
            logger.warning("handoff queue length unavailable: %s", exc)
            return
        family = GaugeMetricFamily(
            "tulia_handoff_queue_length",
            "Handoff tickets waiting for an agent (open, unclaimed)",
            labels=["tenant"],
        )
        for tenant_id, count in waiting.items():
            family.add_metric([tenant_id], count)
        yield family
