"""What happens while a batch is sending: a STOP arriving mid-batch is honoured, and a
status callback that beats its own sid (answers are recorded in groups) is held and
applied when the sid is recorded, never lost."""

from __future__ import annotations

from uuid import UUID

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from twilio.request_validator import RequestValidator

from tenants.context import tenant_context
from tenants.services import record_consent
from tulia.campaigns import control, sending
from tulia.campaigns.models import CampaignRecipient
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.backends.base import OutgoingMessage, SendResult
from tulia.whatsapp.backends.twilio_rest import TwilioBackend
from tulia.whatsapp.emulator import TwilioEmulator, status_params

from .conftest import TOKEN_A, add_customers

pytestmark = pytest.mark.django_db


def _post_status(form: dict[str, str]) -> int:
    """Twilio's signed status callback, through the real webhook."""
    path = reverse("whatsapp:status")
    url = f"{django_settings.PUBLIC_BASE_URL}{path}"
    signature = RequestValidator(TOKEN_A).compute_signature(url, form)
    return Client().post(path, form, headers={"X-Twilio-Signature": signature}).status_code


class CallbackBeatsTheAnswer(TwilioBackend):
    """Twilio accepts, and its "delivered" callback reaches us before the worker has
    recorded the sid Twilio answered with."""

    def __init__(self, twilio: TwilioEmulator, tenant_id: UUID) -> None:
        super().__init__()
        self.twilio, self.tenant_id = twilio, tenant_id

    def send(self, message: OutgoingMessage) -> SendResult:
        result = super().send(message)
        accepted = next(m for m in self.twilio.sent if m.sid == result.sid)
        with tenant_context(self.tenant_id):
            assert not OutboundMessage.objects.filter(twilio_sid=result.sid).exists()
        assert _post_status(status_params(accepted, "delivered")) == 204
        return result


def test_delivered_before_the_sid_is_recorded_is_applied_after(
    tenant, twilio, make_campaign
) -> None:
    add_customers(tenant, 3)
    campaign = make_campaign()
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)
    report = sending.run(tenant.id, campaign.pk, backend=CallbackBeatsTheAnswer(twilio, tenant.id))
    assert report.sent == 3
    with tenant_context(tenant.id):
        rows = dict(OutboundMessage.objects.values_list("twilio_sid", "status"))
    assert rows == {m.sid: OutboundMessage.Status.DELIVERED for m in twilio.sent}


def test_a_callback_for_a_sid_never_recorded_changes_nothing(tenant, twilio, make_campaign):
    add_customers(tenant, 1)
    campaign = make_campaign()
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)
    sending.run(tenant.id, campaign.pk)
    (accepted,) = twilio.sent
    stranger_sid = "SM" + "7" * 32
    form = status_params(accepted, "read") | {"MessageSid": stranger_sid, "SmsSid": stranger_sid}
    assert _post_status(form) == 204
    with tenant_context(tenant.id):
        assert list(OutboundMessage.objects.values_list("status", flat=True)) == ["queued"]


class StopArrivesMidBatch(TwilioBackend):
    """While the first message of the batch is with Twilio, `quitter` sends STOP."""

    def __init__(self, tenant_id: UUID, quitter_id: int) -> None:
        super().__init__()
        self.tenant_id, self.quitter_id, self.calls = tenant_id, quitter_id, 0

    def send(self, message: OutgoingMessage) -> SendResult:
        self.calls += 1
        if self.calls == 1:
            record_consent(
                self.tenant_id, self.quitter_id, kind="all", action="withdrawn", source="whatsapp"
            )
        return super().send(message)


def test_stop_arriving_mid_batch_is_honoured(tenant, twilio, make_campaign) -> None:
    first, second, quitter = add_customers(tenant, 3)
    campaign = make_campaign()
    control.schedule(tenant.id, campaign.pk)
    assert control.start_due(tenant.id, campaign.pk)
    backend = StopArrivesMidBatch(tenant.id, quitter.pk)
    report = sending.run(tenant.id, campaign.pk, backend=backend)
    assert sorted(m.to for m in twilio.sent) == sorted(
        f"whatsapp:{c.phone_e164}" for c in (first, second)
    )
    assert (report.sent, report.skipped) == (2, 1)
    with tenant_context(tenant.id):
        row = CampaignRecipient.objects.get(campaign_id=campaign.pk, customer_id=quitter.pk)
        assert row.status == CampaignRecipient.Status.SKIPPED
        assert "opted out while the batch was sending" in row.reason
        assert row.outbound is not None
        assert row.outbound.status == OutboundMessage.Status.NOT_SENT
