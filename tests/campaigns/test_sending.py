"""Campaign runs against the Twilio emulator: audience, consent, tier, crashes, pauses."""

from __future__ import annotations

from collections import Counter
from datetime import time, timedelta

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tenants.services import record_consent
from tulia.campaigns import control, sending
from tulia.campaigns.models import Campaign, CampaignEvent, CampaignRecipient, MessagingSettings
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.backends.base import OutgoingMessage, SendResult
from tulia.whatsapp.backends.twilio_rest import TwilioBackend
from tulia.whatsapp.models import SenderLimit

from .conftest import add_customers

pytestmark = pytest.mark.django_db
Recipient = CampaignRecipient


def _start(tenant, campaign) -> None:
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)


def _recipients(tenant, campaign) -> Counter[str]:
    with tenant_context(tenant.id):
        return Counter(
            Recipient.objects.filter(campaign_id=campaign.pk).values_list("status", flat=True)
        )


def _status(tenant, campaign) -> str:
    with tenant_context(tenant.id):
        return Campaign.objects.get(pk=campaign.pk).status


def _events(tenant, campaign) -> list[str]:
    with tenant_context(tenant.id):
        return list(
            CampaignEvent.objects.filter(campaign_id=campaign.pk).values_list("kind", flat=True)
        )


def test_opted_in_audience_gets_one_template_each(tenant, stranger, twilio, make_campaign) -> None:
    fans = add_customers(tenant, 5)
    add_customers(tenant, 3, opted_in=False, start=100)  # never in the audience
    add_customers(stranger, 2, start=200)  # another shop's customers
    campaign = make_campaign()
    _start(tenant, campaign)
    report = sending.run(tenant.id, campaign.pk)
    assert report.sent == 5
    assert sorted(m.to for m in twilio.sent) == sorted(f"whatsapp:{c.phone_e164}" for c in fans)
    assert {m.content_sid for m in twilio.sent} == {campaign.template.content_sid}
    assert all(m.content_variables == {"1": "weekend"} for m in twilio.sent)
    assert _recipients(tenant, campaign) == {"sent": 5}
    assert _status(tenant, campaign) == Campaign.Status.DONE
    assert sending.run(tenant.id, campaign.pk).sent == 0  # done: a second run sends nothing
    assert len(twilio.sent) == 5


def test_customer_who_opts_out_after_the_audience_is_built_is_skipped(
    tenant, twilio, make_campaign
) -> None:
    first, second = add_customers(tenant, 2)
    campaign = make_campaign()
    _start(tenant, campaign)
    sending.build_audience(tenant.id, campaign)
    record_consent(tenant.id, second.pk, kind="marketing", action="withdrawn", source="whatsapp")
    sending.run(tenant.id, campaign.pk)
    assert [m.to for m in twilio.sent] == [f"whatsapp:{first.phone_e164}"]
    with tenant_context(tenant.id):
        skipped = Recipient.objects.get(customer_id=second.pk)
    assert skipped.status == Recipient.Status.SKIPPED
    assert "withdrawal" in skipped.reason


def test_campaign_larger_than_the_tier_is_spread_and_the_owner_told(
    tenant, twilio, make_campaign
) -> None:
    add_customers(tenant, 12)
    campaign = make_campaign()
    with tenant_context(tenant.id) as tid:
        # A 10-a-day tier cannot be chosen in admin; the arithmetic is the same as 250.
        limit = SenderLimit.objects.create(tenant_id=tid, sender=campaign.sender)
        SenderLimit.objects.filter(pk=limit.pk).update(tier="250", utility_reserve_percent=90)
    # 250 with 90% kept for utility: marketing may reach 25 customers a day.
    _start(tenant, campaign)
    report = sending.run(tenant.id, campaign.pk)
    assert report.sent == 12  # 12 fits in 25
    assert "spread" not in _events(tenant, campaign)

    more = make_campaign(name="Second wave", audience={"tags": ["wave2"]})
    add_customers(tenant, 20, start=500, tags=["wave2"])
    _start(tenant, more)
    report = sending.run(tenant.id, more.pk)
    # 25 marketing customers a day in all; 12 already reached today by the first wave.
    assert report.sent == 13
    assert report.next_at is not None
    assert report.next_at > timezone.now() + timedelta(hours=23)
    assert _status(tenant, more) == Campaign.Status.RUNNING
    assert {"spread", "tier_wait"} <= set(_events(tenant, more))
    with tenant_context(tenant.id):
        spread = CampaignEvent.objects.get(campaign_id=more.pk, kind="spread").text
    assert "25 customers a day" in spread
    assert "2 days" in spread
    reached = {m.to for m in twilio.sent}
    assert len(reached) == 25 == len(twilio.sent)


class WorkerDiesAfterTwilio(TwilioBackend):
    """Twilio accepts the message, then the worker dies before recording it."""

    def send(self, message: OutgoingMessage) -> SendResult:
        super().send(message)
        raise WorkerKilled


class WorkerDiesBeforeTwilio(TwilioBackend):
    def send(self, message: OutgoingMessage) -> SendResult:
        raise WorkerKilled


class WorkerKilled(BaseException):
    """Stands for SIGKILL: nothing in the send path catches it."""


@pytest.mark.parametrize(
    ("dying", "expected"),
    [(WorkerDiesAfterTwilio, (1, 2)), (WorkerDiesBeforeTwilio, (0, 3))],
)
def test_send_left_in_doubt_is_reconciled_with_twilio_before_any_resend(
    tenant, twilio, make_campaign, dying, expected
) -> None:
    found, resent = expected
    add_customers(tenant, 3)
    campaign = make_campaign()
    _start(tenant, campaign)
    with pytest.raises(WorkerKilled):
        sending.run(tenant.id, campaign.pk, backend=dying())
    # The whole batch was committed `sending` before the first call; the worker died on it.
    assert _recipients(tenant, campaign) == {"sending": 3}
    report = sending.run(tenant.id, campaign.pk)
    assert (report.found, report.resent) == (found, resent)
    per_customer = Counter(m.to for m in twilio.sent)
    assert sorted(per_customer.values()) == [1, 1, 1]  # never twice, never lost
    assert _recipients(tenant, campaign) == {"sent": 3}
    with tenant_context(tenant.id):
        assert Recipient.objects.filter(doubt=Recipient.Doubt.FOUND).count() == found
        assert Recipient.objects.filter(doubt=Recipient.Doubt.RESENT).count() == resent
        sids = set(OutboundMessage.objects.values_list("twilio_sid", flat=True))
    assert sids == {m.sid for m in twilio.sent}


def test_message_found_at_twilio_after_a_crash_counts_by_its_real_status(
    tenant, twilio, make_campaign
) -> None:
    """Twilio accepted it, the worker died, then Meta refused it (63049): found, not
    sent again, and counted as failed with the code, never as sent."""
    (customer,) = add_customers(tenant, 1)
    campaign = make_campaign()
    _start(tenant, campaign)
    with pytest.raises(WorkerKilled):
        sending.run(tenant.id, campaign.pk, backend=WorkerDiesAfterTwilio())
    (accepted,) = twilio.sent
    twilio.fail_after_accepting(accepted.sid, 63049, "Meta chose not to deliver")
    report = sending.run(tenant.id, campaign.pk)
    assert (report.found, report.resent, report.sent, report.skipped) == (1, 0, 0, 1)
    assert len(twilio.sent) == 1
    with tenant_context(tenant.id):
        recipient = Recipient.objects.select_related("outbound").get(customer_id=customer.pk)
    assert recipient.status == Recipient.Status.SKIPPED  # a WhatsApp refusal, as the gate's
    assert recipient.doubt == Recipient.Doubt.FOUND
    assert recipient.reason.startswith("63049")
    assert recipient.outbound.status == OutboundMessage.Status.NOT_SENT
    assert recipient.outbound.twilio_sid == accepted.sid


def test_failed_not_refused_at_twilio_after_a_crash_counts_as_failed(
    tenant, twilio, make_campaign
) -> None:
    add_customers(tenant, 1)
    campaign = make_campaign()
    _start(tenant, campaign)
    with pytest.raises(WorkerKilled):
        sending.run(tenant.id, campaign.pk, backend=WorkerDiesAfterTwilio())
    twilio.fail_after_accepting(twilio.sent[0].sid, 30008, "Unknown error")
    report = sending.run(tenant.id, campaign.pk)
    assert (report.found, report.sent, report.failed) == (1, 0, 1)
    assert _recipients(tenant, campaign) == {"failed": 1}


def test_template_paused_by_whatsapp_pauses_the_campaign(tenant, twilio, make_campaign) -> None:
    add_customers(tenant, 4)
    campaign = make_campaign()
    twilio.pause(campaign.template.content_sid)  # Meta paused it for quality; we don't know yet
    _start(tenant, campaign)
    sending.run(tenant.id, campaign.pk)
    assert _status(tenant, campaign) == Campaign.Status.PAUSED
    assert _recipients(tenant, campaign) == {"skipped": 1, "queued": 3}
    with tenant_context(tenant.id):
        reason = Campaign.objects.get(pk=campaign.pk).pause_reason
    assert "63027" in reason
    assert "paused" in _events(tenant, campaign)


def test_per_user_marketing_refusals_pause_the_campaign(tenant, twilio, make_campaign) -> None:
    tired = add_customers(tenant, 6)
    add_customers(tenant, 4, start=50)
    twilio.marketing_limited |= {f"whatsapp:{c.phone_e164}" for c in tired}
    campaign = make_campaign()
    _start(tenant, campaign)
    sending.run(tenant.id, campaign.pk)
    assert _status(tenant, campaign) == Campaign.Status.PAUSED
    with tenant_context(tenant.id):
        reason = Campaign.objects.get(pk=campaign.pk).pause_reason
    assert "63049" in reason
    control.resume(tenant.id, campaign.pk)
    assert _status(tenant, campaign) == Campaign.Status.RUNNING


def test_quiet_hours_hold_the_campaign_until_morning(tenant, twilio, make_campaign) -> None:
    add_customers(tenant, 2)
    with tenant_context(tenant.id):
        MessagingSettings.objects.update(quiet_from=time(0, 0), quiet_until=time(23, 59))
    campaign = make_campaign()
    _start(tenant, campaign)
    report = sending.run(tenant.id, campaign.pk)
    assert twilio.sent == []
    assert report.next_at is not None
    assert report.next_at > timezone.now()


def test_cancel_skips_the_rest_and_pause_stops_a_run(tenant, twilio, make_campaign) -> None:
    add_customers(tenant, 3)
    campaign = make_campaign()
    _start(tenant, campaign)
    sending.build_audience(tenant.id, campaign)
    control.pause(tenant.id, campaign.pk)
    assert sending.run(tenant.id, campaign.pk).sent == 0
    control.cancel(tenant.id, campaign.pk)
    assert _recipients(tenant, campaign) == {"skipped": 3}
    with pytest.raises(control.CampaignStateError):
        control.resume(tenant.id, campaign.pk)
    assert twilio.sent == []


def test_unapproved_or_utility_template_cannot_be_scheduled(tenant, twilio, make_campaign) -> None:
    campaign = make_campaign()
    with tenant_context(tenant.id):
        campaign.template.status = "paused"
        campaign.template.save()
    with pytest.raises(control.CampaignStateError, match="not approved"):
        control.schedule(tenant.id, campaign.pk)
