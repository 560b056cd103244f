"""Over real HTTP: the emulator delivers a signed webhook to a live server, a real worker
takes the turn, the twilio client sends the reply to the emulator, and the emulator's
status callbacks come back signed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tenants.context import tenant_context
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.emulator import inbound_params, signed_post, status_params

from .conftest import SID_A, TOKEN_A
from .test_worker import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _outbound(tenant_id) -> list[OutboundMessage]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.order_by("id"))


@pytest.mark.usefixtures("celery_worker")
def test_message_round_trip_through_emulator_and_worker(
    live_server, settings, twilio, tenant, stranger
) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    inbound_url = live_server.url + reverse("whatsapp:inbound")
    form = inbound_params(SID_A, "+254711000001", "+254712345678", "Hi Kicks")
    assert signed_post(inbound_url, TOKEN_A, form).status_code == 200

    wait_for(lambda: len(twilio.sent) == 1)
    (sent,) = twilio.sent
    assert sent.to == "whatsapp:+254712345678"
    assert "Kicks Nairobi" in sent.body
    assert sent.status_callback == live_server.url + reverse("whatsapp:status")
    wait_for(lambda: _outbound(tenant.id)[0].twilio_sid == sent.sid)

    for status in ("read", "delivered"):  # out of order, as WhatsApp may report them
        response = signed_post(sent.status_callback, TOKEN_A, status_params(sent, status))
        assert response.status_code == 204
    assert _outbound(tenant.id)[0].status == OutboundMessage.Status.READ
    assert _outbound(stranger.id) == []


@pytest.mark.usefixtures("celery_worker")
def test_replayed_webhook_over_http_gets_one_reply(live_server, settings, twilio, tenant) -> None:
    settings.PUBLIC_BASE_URL = live_server.url
    inbound_url = live_server.url + reverse("whatsapp:inbound")
    form = inbound_params(SID_A, "+254711000001", "+254712345678", "Hi again")
    for _ in range(3):
        assert signed_post(inbound_url, TOKEN_A, form).status_code == 200
    wait_for(lambda: len(twilio.sent) == 1)
    wait_for(lambda: _outbound(tenant.id)[0].status == OutboundMessage.Status.QUEUED)
    assert len(twilio.sent) == 1
