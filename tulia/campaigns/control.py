"""What an owner does to a campaign: schedule or send now, pause, resume, cancel.

Each is one conditional UPDATE from the states it applies to, so two clicks (or an
admin click racing the runner) cannot both win; the error says what state it was in.
The runner itself starts from Celery beat (`campaigns.due`) or from `start_now`.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.utils import timezone

from tenants.accessors import get_owned
from tenants.context import tenant_context
from tulia.campaigns.models import Campaign, CampaignRecipient
from tulia.campaigns.notices import Reason
from tulia.campaigns.sending import pause as pause_campaign
from tulia.campaigns.sending import tell
from tulia.errors import DomainError
from tulia.whatsapp.models import MessageTemplate

Status = Campaign.Status


class CampaignStateError(DomainError):
    """The campaign's status does not allow that step (the API answers 409)."""

    code = "campaign_state"


def _move(
    tenant_id: UUID | str, campaign_id: int, allowed: tuple[str, ...], **fields: object
) -> Campaign:
    with tenant_context(tenant_id) as tid:
        campaign = get_owned(Campaign, tid, campaign_id)
        moved = Campaign.objects.filter(tenant_id=tid, pk=campaign_id, status__in=allowed).update(
            **fields
        )
        if not moved:
            raise CampaignStateError(f"campaign is {campaign.status}; cannot do that now")
        campaign.refresh_from_db()
        return campaign


def schedule(tenant_id: UUID | str, campaign_id: int, at: datetime | None = None) -> Campaign:
    """Schedule for `at` (aware; None: now). The template must be an approved marketing one."""
    campaign = get_owned(Campaign, tenant_id, campaign_id)
    template = get_owned(MessageTemplate, tenant_id, campaign.template_id)
    if template.category != MessageTemplate.Category.MARKETING:
        raise CampaignStateError("a broadcast uses a marketing template")
    if template.status != MessageTemplate.Status.APPROVED or not template.content_sid:
        raise CampaignStateError(f"template {template.name} is {template.status}, not approved")
    when = at or timezone.now()
    if timezone.is_naive(when):
        raise CampaignStateError("give the time with its timezone")
    campaign = _move(
        tenant_id, campaign_id, (Status.DRAFT,),
        status=Status.SCHEDULED, scheduled_at=when, next_run_at=when,
    )  # fmt: skip
    tell(tenant_id, campaign_id, "scheduled", f"Scheduled for {when:%Y-%m-%d %H:%M %Z}.")
    return campaign


def start_due(tenant_id: UUID | str, campaign_id: int) -> bool:
    """A scheduled campaign whose time has come starts running (beat calls this)."""
    with tenant_context(tenant_id) as tid:
        started = Campaign.objects.filter(
            tenant_id=tid, pk=campaign_id, status=Status.SCHEDULED, scheduled_at__lte=timezone.now()
        ).update(status=Status.RUNNING, started_at=timezone.now(), next_run_at=timezone.now())
    return bool(started)


def pause(tenant_id: UUID | str, campaign_id: int) -> Campaign:
    if not pause_campaign(tenant_id, campaign_id, Reason("owner")):
        raise CampaignStateError("only a running or scheduled campaign can be paused")
    return get_owned(Campaign, tenant_id, campaign_id)


def resume(tenant_id: UUID | str, campaign_id: int) -> Campaign:
    now = timezone.now()
    campaign = _move(
        tenant_id, campaign_id, (Status.PAUSED,),
        status=Status.RUNNING, pause_reason="", next_run_at=now,
    )  # fmt: skip
    if campaign.started_at is None:
        _move(tenant_id, campaign_id, (Status.RUNNING,), started_at=now)
    tell(tenant_id, campaign_id, "resumed", "Resumed.")
    return campaign


def cancel(tenant_id: UUID | str, campaign_id: int) -> Campaign:
    """Stop for good: recipients not yet sent to are skipped (those mid-send finish)."""
    campaign = _move(
        tenant_id, campaign_id, (Status.DRAFT, Status.SCHEDULED, Status.RUNNING, Status.PAUSED),
        status=Status.CANCELLED, finished_at=timezone.now(), next_run_at=None,
    )  # fmt: skip
    with tenant_context(tenant_id) as tid:
        CampaignRecipient.objects.filter(
            tenant_id=tid, campaign_id=campaign_id, status=CampaignRecipient.Status.QUEUED
        ).update(status=CampaignRecipient.Status.SKIPPED, reason="campaign cancelled")
    tell(tenant_id, campaign_id, "cancelled", "Cancelled.")
    return campaign
