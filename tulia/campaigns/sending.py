"""Running a campaign: recipients written from the audience, then sent within the rules.

A run is one slice of work under the campaign's lease (one runner at a time):

1. settle recipients left `sending` by an earlier run: their outbound row tells what
   happened; a row itself still `sending` with no deliverer alive is looked up in
   Twilio's message list (tulia/whatsapp/reconcile.py) before anything is sent again,
   and counted by the status Twilio lists (found is not the same as sent);
2. write the recipient rows from the audience, streamed in chunks, once;
3. outside the shop's quiet hours, send batch after batch (tulia/campaigns/batch.py):
   each batch is claimed in one committed transaction that checks the template, the
   consent ledger and the sender's marketing share of its tier, then sent over one
   kept-alive connection within `rate_per_second` sends per sender in any rolling
   second, shared by every runner of that number (tulia/campaigns/rate.py);
4. Twilio codes that mean WhatsApp is unhappy with the number or template pause it, and
   a tier used up makes the run wait for the rolling 24 hours to free a slot.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import Min
from django.utils import timezone

from tenants.context import tenant_context
from tulia.campaigns import audience, batch, notices, optouts, schedule
from tulia.campaigns.models import Campaign, CampaignEvent, CampaignRecipient
from tulia.campaigns.rate import RateGate
from tulia.conversations import locks
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import delivery, dispatch, limits, reconcile
from tulia.whatsapp.backends import WhatsAppBackend, get_backend

logger = logging.getLogger(__name__)
Recipient = CampaignRecipient
OutStatus = OutboundMessage.Status
SLICE_SECONDS = 20.0
# A recipient whose send Twilio could not confirm or deny for this long is written off
# as lost rather than risk a second message.
LOST_AFTER = timedelta(hours=6)
_ACCEPTED = (
    OutStatus.QUEUED,
    OutStatus.ACCEPTED,
    OutStatus.SENT,
    OutStatus.DELIVERED,
    OutStatus.READ,
)


@dataclass
class RunReport:
    sent: int = 0
    skipped: int = 0
    failed: int = 0
    found: int = 0  # in doubt, Twilio had it (counted in sent or failed by its status)
    resent: int = 0  # in doubt, Twilio did not: sent again
    lost: int = 0
    next_at: datetime | None = None
    notes: list[str] = field(default_factory=list)


def tell(
    tenant_id: UUID | str, campaign_id: int, kind: str, text: str = "", **params: object
) -> None:
    """Record a notice for the owner (shown on the campaign in admin and the API). The
    owner's notices (notices.WORDING) are worded from `params`, and kept with them so
    the console can show them in the owner's language."""
    if kind in notices.WORDING:
        text = notices.english(kind, params)
    with tenant_context(tenant_id) as tid:
        CampaignEvent.objects.create(
            tenant_id=tid, campaign_id=campaign_id, kind=kind, text=text, params=params
        )
    logger.info("campaign %s: %s", campaign_id, text)


def _load(tenant_id: UUID, campaign_id: int) -> Campaign:
    with tenant_context(tenant_id) as tid:
        return Campaign.objects.select_related("template").get(tenant_id=tid, pk=campaign_id)


def _set(tenant_id: UUID, campaign_id: int, **fields: object) -> None:
    with tenant_context(tenant_id) as tid:
        Campaign.objects.filter(tenant_id=tid, pk=campaign_id).update(**fields)


def pause(tenant_id: UUID | str, campaign_id: int, reason: notices.Reason) -> bool:
    with tenant_context(tenant_id) as tid:
        changed = Campaign.objects.filter(
            tenant_id=tid,
            pk=campaign_id,
            status__in=(Campaign.Status.RUNNING, Campaign.Status.SCHEDULED),
        ).update(status=Campaign.Status.PAUSED, pause_reason=str(reason)[:300])
    if changed:
        tell(tenant_id, campaign_id, "paused", "", cause=reason.cause, **reason.params)
    return bool(changed)


# --- the audience -------------------------------------------------------------------
def build_audience(tenant_id: UUID, campaign: Campaign) -> int:
    """Write one queued recipient per audience customer, chunk by chunk; safe to repeat."""
    segment = audience.parse(campaign.audience)
    written = 0
    for chunk in audience.customer_ids(tenant_id, segment):
        with tenant_context(tenant_id) as tid:
            rows = [Recipient(tenant_id=tid, campaign_id=campaign.pk, customer_id=c) for c in chunk]
            Recipient.objects.bulk_create(rows, ignore_conflicts=True)
        written += len(chunk)
    _set(tenant_id, campaign.pk, audience_built=True)
    return written


# --- the sender's tier and rate -----------------------------------------------------
def slot_frees_at(tenant_id: UUID, sender_id: int) -> datetime:
    """When the oldest customer counted against the tier leaves the rolling 24 hours."""
    now = timezone.now()
    with tenant_context(tenant_id) as tid:
        oldest = (
            OutboundMessage.objects.filter(
                tenant_id=tid,
                conversation__sender_id=sender_id,
                created_at__gte=now - limits.ROLLING,
            )
            .exclude(content_sid="")
            .exclude(status=OutStatus.NOT_SENT)
            .aggregate(first=Min("created_at"))["first"]
        )
    return (oldest + limits.ROLLING) if oldest else now + timedelta(minutes=15)


def _tell_spread(tenant_id: UUID, campaign: Campaign) -> None:
    """Told once, when a campaign starts: how many days the tier spreads it over."""
    with tenant_context(tenant_id) as tid:
        queued = Recipient.objects.filter(
            campaign_id=campaign.pk, status=Recipient.Status.QUEUED
        ).count()
        told = CampaignEvent.objects.filter(
            tenant_id=tid, campaign_id=campaign.pk, kind="spread"
        ).exists()
    limit = limits.limit_for(tenant_id, campaign.sender_id)
    usage = limits.usage(limit)
    per_day = usage.marketing_capacity
    if told or per_day is None or per_day <= 0:
        return
    today = max(0, per_day - usage.used)
    if queued <= today:
        return
    days = 1 + math.ceil((queued - today) / per_day)
    tell(
        tenant_id, campaign.pk, "spread", queued=queued, per_day=per_day,
        reserve=limit.utility_reserve_percent, days=days,
    )  # fmt: skip


# --- one recipient ------------------------------------------------------------------
def _settle_one(tenant_id: UUID, recipient_id: int) -> str:
    """Copy the outbound row's outcome onto a `sending` recipient; its new status. A
    refusal or failure counts as such even when Twilio gave the message a sid."""
    with tenant_context(tenant_id) as tid:
        recipient = Recipient.objects.select_related("outbound").get(tenant_id=tid, pk=recipient_id)
        message = recipient.outbound
        if recipient.status != Recipient.Status.SENDING or message is None:
            return recipient.status
        reason = f"{message.error_code or ''} {message.error_message}".strip()[:300]
        if message.status == OutStatus.NOT_SENT:
            recipient.status, recipient.reason = Recipient.Status.SKIPPED, reason
        elif message.status in (OutStatus.FAILED, OutStatus.UNDELIVERED):
            recipient.status, recipient.reason = Recipient.Status.FAILED, reason
        elif message.twilio_sid or message.status in _ACCEPTED:
            recipient.status = Recipient.Status.SENT
            recipient.sent_at = message.sent_at or timezone.now()
        else:
            return Recipient.Status.SENDING  # pending or sending: still in flight
        recipient.save(update_fields=["status", "sent_at", "reason"])
        return recipient.status


# --- recipients left in doubt -------------------------------------------------------
def settle_in_doubt(
    tenant_id: UUID, campaign_id: int, report: RunReport, backend: WhatsAppBackend | None = None
) -> None:
    """Settle every recipient still `sending` (an earlier run died, or delivery was
    handed to the task): from its outbound row, or from Twilio's list when the row
    itself is still `sending` with nobody delivering it."""
    with tenant_context(tenant_id) as tid:
        stuck = list(
            Recipient.objects.filter(
                tenant_id=tid, campaign_id=campaign_id, status=Recipient.Status.SENDING
            ).values_list(
                "pk", "outbound_id", "outbound__status", "outbound__conversation_id", "claimed_at"
            )
        )
    for pk, message_id, message_status, conversation_id, claimed_at in stuck:
        if message_status == OutStatus.SENDING:
            outcome = reconcile.reconcile(tenant_id, message_id, backend)
            if outcome == "found":
                _mark_doubt(tenant_id, pk, Recipient.Doubt.FOUND)
                report.found += 1
            elif outcome == "absent":
                _mark_doubt(tenant_id, pk, Recipient.Doubt.RESENT)
                report.resent += 1
                try:
                    delivery.deliver_conversation(tenant_id, conversation_id, backend)
                except (delivery.DeliveryBusy, delivery.DeliveryDeferred):
                    dispatch.enqueue_delivery(tenant_id, conversation_id)
            elif outcome == "unknown" and claimed_at and timezone.now() - claimed_at > LOST_AFTER:
                _write_off(tenant_id, pk, message_id)
                report.lost += 1
                continue
        elif message_status == OutStatus.PENDING and conversation_id is not None:
            # Never reached Twilio (a retryable refusal, or the run died between claim
            # and call): deliver it.
            try:
                delivery.deliver_conversation(tenant_id, conversation_id, backend)
            except (delivery.DeliveryBusy, delivery.DeliveryDeferred):
                dispatch.enqueue_delivery(tenant_id, conversation_id)
        _count(report, _settle_one(tenant_id, pk))


def _mark_doubt(tenant_id: UUID, recipient_id: int, doubt: str) -> None:
    with tenant_context(tenant_id) as tid:
        Recipient.objects.filter(tenant_id=tid, pk=recipient_id).update(doubt=doubt)


def _write_off(tenant_id: UUID, recipient_id: int, message_id: int) -> None:
    reason = "lost: the worker died mid-send and Twilio could not confirm it; not sent again"
    with tenant_context(tenant_id) as tid:
        OutboundMessage.objects.filter(
            tenant_id=tid, pk=message_id, status=OutStatus.SENDING
        ).update(status=OutStatus.FAILED, error_message=reason)
        Recipient.objects.filter(tenant_id=tid, pk=recipient_id).update(
            status=Recipient.Status.FAILED, doubt=Recipient.Doubt.LOST, reason=reason
        )


# --- a run --------------------------------------------------------------------------
def _finish_if_done(tenant_id: UUID, campaign_id: int) -> bool:
    with tenant_context(tenant_id) as tid:
        open_rows = Recipient.objects.filter(
            tenant_id=tid,
            campaign_id=campaign_id,
            status__in=(Recipient.Status.QUEUED, Recipient.Status.SENDING),
        ).exists()
        if open_rows:
            return False
        done = Campaign.objects.filter(
            tenant_id=tid, pk=campaign_id, status=Campaign.Status.RUNNING
        ).update(status=Campaign.Status.DONE, finished_at=timezone.now(), next_run_at=None)
    if done:
        tell(tenant_id, campaign_id, "done")
    return True


def _still_running(tenant_id: UUID, campaign_id: int) -> bool:
    with tenant_context(tenant_id) as tid:
        return Campaign.objects.filter(
            tenant_id=tid, pk=campaign_id, status=Campaign.Status.RUNNING
        ).exists()


def run(
    tenant_id: UUID | str,
    campaign_id: int,
    *,
    seconds: float = SLICE_SECONDS,
    backend: WhatsAppBackend | None = None,
) -> RunReport:
    """One slice of the campaign (see the module doc); `next_at` says when to go on."""
    tid = UUID(str(tenant_id))
    report = RunReport()
    with locks.hold(tid, "campaign", campaign_id) as held:
        if not held.acquired:
            report.notes.append("another runner has this campaign")
            return report
        campaign = _load(tid, campaign_id)
        if campaign.status != Campaign.Status.RUNNING:
            return report
        settle_in_doubt(tid, campaign_id, report, backend)
        if not campaign.audience_built:
            build_audience(tid, campaign)
            _tell_spread(tid, campaign)
        quiet = schedule.quiet_ends(tid)
        if quiet is not None:
            report.next_at = quiet
        else:
            _send_slice(tid, campaign, seconds, backend, report)
        if report.found or report.resent or report.lost:
            tell(
                tid, campaign_id, "recovered",
                found=report.found, resent=report.resent, lost=report.lost,
            )  # fmt: skip
        if report.next_at is None and not _finish_if_done(tid, campaign_id):
            report.next_at = timezone.now()
        _set(tid, campaign_id, next_run_at=report.next_at)
    return report


def _send_slice(
    tenant_id: UUID,
    campaign: Campaign,
    seconds: float,
    backend: WhatsAppBackend | None,
    report: RunReport,
) -> None:
    deadline = time.monotonic() + seconds
    rate = RateGate(
        tenant_id, campaign.sender_id, campaign.rate_per_second, watch=optouts.key(tenant_id)
    )
    chosen = backend or get_backend()
    while time.monotonic() < deadline and _still_running(tenant_id, campaign.pk):
        outcome = batch.send_batch(tenant_id, campaign, rate, chosen)
        report.sent += outcome.sent
        report.skipped += outcome.skipped
        report.failed += outcome.failed
        if outcome.stop:
            pause(tenant_id, campaign.pk, outcome.stop)
            return
        if outcome.tier_full:
            _wait_for_tier(tenant_id, campaign, report)
            return
        if outcome.claimed == 0:
            return


def _count(report: RunReport, outcome: str) -> None:
    if outcome == Recipient.Status.SENT:
        report.sent += 1
    elif outcome == Recipient.Status.SKIPPED:
        report.skipped += 1
    elif outcome == Recipient.Status.FAILED:
        report.failed += 1


def _wait_for_tier(tenant_id: UUID, campaign: Campaign, report: RunReport) -> None:
    report.next_at = slot_frees_at(tenant_id, campaign.sender_id)
    with tenant_context(tenant_id) as tid:
        recently = CampaignEvent.objects.filter(
            tenant_id=tid, campaign_id=campaign.pk, kind="tier_wait",
            created_at__gte=timezone.now() - timedelta(hours=12),
        ).exists()  # fmt: skip
    if not recently:
        local = report.next_at.astimezone(schedule.shop_zone(tenant_id))
        when = local.replace(tzinfo=None).isoformat(timespec="minutes")
        tell(tenant_id, campaign.pk, "tier_wait", when=when)
