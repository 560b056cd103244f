"""Celery entry points for campaigns and nudges; every task carries its tenant id.

`campaigns.due` (beat) starts scheduled campaigns whose time has come and hands every
running campaign that is due, and not already being run, to `campaigns.run`. A run is
one slice under the campaign's lease; it enqueues the next slice itself when there is
more to do now, and otherwise leaves `next_run_at` for the beat. A worker killed
mid-slice loses its lease within seconds, and the next beat hands the campaign to a
live worker, which settles the recipients left `sending` before sending anything.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from uuid import UUID

from django.utils import timezone
from kombu.exceptions import OperationalError

from tenants.context import operator_context
from tulia.campaigns import control, nudges, sending
from tulia.campaigns.models import Campaign
from tulia.celery import app
from tulia.conversations import locks

logger = logging.getLogger(__name__)
DUE_EVERY_SECONDS = 15.0
NUDGE_EVERY_SECONDS = 900.0


@app.task(name="campaigns.run", acks_late=True)
def run_campaign(tenant_id: str, campaign_id: int) -> int:
    report = sending.run(tenant_id, campaign_id)
    now = timezone.now()
    more_now = report.next_at is not None and report.next_at <= now + timedelta(seconds=1)
    if more_now and not run_campaign.app.conf.task_always_eager:
        run_campaign.delay(tenant_id, campaign_id)
    return report.sent


def start_now(tenant_id: UUID | str, campaign_id: int) -> None:
    """Start a campaign due now (or resumed) without waiting for the beat; with the
    broker away the beat starts it instead."""
    control.start_due(tenant_id, campaign_id)
    try:
        run_campaign.delay(str(tenant_id), campaign_id)
    except (OperationalError, ConnectionError, OSError) as exc:
        logger.warning("broker unavailable, campaign %s left to the beat: %s", campaign_id, exc)


@app.task(name="campaigns.due", acks_late=True)
def due() -> int:
    """Start what is scheduled, and run every running campaign that is due."""
    now = timezone.now()
    with operator_context("campaigns: find due campaigns"):
        scheduled = list(
            Campaign.objects.filter(
                status=Campaign.Status.SCHEDULED, scheduled_at__lte=now
            ).values_list("tenant_id", "pk")[:500]
        )
    for tenant_id, campaign_id in scheduled:
        control.start_due(tenant_id, campaign_id)
    with operator_context("campaigns: find running campaigns that are due"):
        running = list(
            Campaign.objects.filter(
                status=Campaign.Status.RUNNING, next_run_at__lte=now
            ).values_list("tenant_id", "pk")[:500]
        )
    handed = 0
    for tenant_id, campaign_id in running:
        if not locks.is_held(tenant_id, "campaign", campaign_id):
            run_campaign.delay(str(tenant_id), campaign_id)
            handed += 1
    return handed


@app.task(name="campaigns.nudges", acks_late=True)
def nudge_all() -> int:
    """Fan out: one nudge pass per shop with a nudge switched on."""
    tenant_ids = nudges.tenants_with_nudges()
    for tenant_id in tenant_ids:
        nudge_tenant.delay(str(tenant_id))
    return len(tenant_ids)


@app.task(name="campaigns.nudge_tenant", acks_late=True)
def nudge_tenant(tenant_id: str) -> int:
    return nudges.run_nudges(tenant_id)


app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "campaigns-due": {
        "task": "campaigns.due",
        "schedule": DUE_EVERY_SECONDS,
        "options": {"expires": DUE_EVERY_SECONDS},
    },
    "campaigns-nudges": {"task": "campaigns.nudges", "schedule": NUDGE_EVERY_SECONDS},
}
