"""Celery entry points of the gateway: thin wrappers that carry ids and retry.

Every task takes the tenant id first and is safe to run twice (the pipeline and the
deliverer re-check stored status under a lock). The sweeper runs on Celery beat; its
schedule is registered here so no settings file needs to know about it.
"""

from __future__ import annotations

import random
from typing import Any

from celery import Task
from django.conf import settings

from tulia.celery import app
from tulia.conversations import pipeline
from tulia.whatsapp import delivery, sweeper, templates

SWEEP_EVERY_SECONDS = settings.TULIA_SWEEP_EVERY_SECONDS
# Meta reviews templates in minutes to a day; asking every 10 minutes is plenty.
TEMPLATE_SYNC_EVERY_SECONDS = 600.0
BUSY_RETRIES = 200


def _busy_countdown(retries: int) -> float:
    # Short at first (a burst's previous turn is finishing), then backing off to 5 s.
    return min(0.1 * 2 ** min(retries, 6), 5.0) + random.uniform(0, 0.05)  # noqa: S311


def _failure_countdown(retries: int) -> float:
    return min(2.0**retries, 300.0) + random.uniform(0, 1)  # noqa: S311


@app.task(bind=True, name="whatsapp.process_inbound", max_retries=None, acks_late=True)
def process_inbound(self: Task[Any, Any], tenant_id: str, message_id: int) -> int:
    try:
        return pipeline.process_inbound(tenant_id, message_id)
    except pipeline.ThreadBusy as exc:
        if self.request.retries >= BUSY_RETRIES:
            return 0  # the holder's lease is long gone by now; the sweeper takes over
        raise self.retry(exc=exc, countdown=_busy_countdown(self.request.retries)) from exc
    except pipeline.TurnFailed as exc:
        raise self.retry(exc=exc, countdown=_failure_countdown(self.request.retries)) from exc


@app.task(bind=True, name="whatsapp.deliver_outbound", max_retries=None, acks_late=True)
def deliver_outbound(self: Task[Any, Any], tenant_id: str, conversation_id: int) -> int:
    try:
        return delivery.deliver_conversation(tenant_id, conversation_id)
    except delivery.DeliveryBusy as exc:
        if self.request.retries >= BUSY_RETRIES:
            return 0
        raise self.retry(exc=exc, countdown=_busy_countdown(self.request.retries)) from exc
    except delivery.DeliveryDeferred as exc:
        raise self.retry(exc=exc, countdown=_failure_countdown(self.request.retries)) from exc


@app.task(name="whatsapp.sweep", acks_late=True)
def sweep() -> dict[str, int]:
    result = sweeper.sweep()
    return {
        "inbound_threads": result.inbound_threads,
        "outbound_conversations": result.outbound_conversations,
    }


@app.task(name="whatsapp.sync_templates", acks_late=True)
def sync_templates() -> int:
    """Fan out: one sync task per shop with a template whose approval may still change."""
    tenant_ids = templates.tenants_with_open_templates()
    for tenant_id in tenant_ids:
        sync_tenant_templates.delay(str(tenant_id))
    return len(tenant_ids)


@app.task(name="whatsapp.sync_tenant_templates", acks_late=True)
def sync_tenant_templates(tenant_id: str) -> int:
    return templates.sync_open(tenant_id)


app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    # A sweep still queued when the next is due is dropped: the next one does its work.
    "whatsapp-sweep": {
        "task": "whatsapp.sweep",
        "schedule": SWEEP_EVERY_SECONDS,
        "options": {"expires": SWEEP_EVERY_SECONDS},
    },
    "whatsapp-template-sync": {
        "task": "whatsapp.sync_templates",
        "schedule": TEMPLATE_SYNC_EVERY_SECONDS,
    },
}
