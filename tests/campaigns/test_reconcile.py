"""The sweeper asks Twilio's message list before sending a part a dead deliverer left
"sending": any reply, not only campaigns, goes at most once. So does the deliverer's
own retry after a network error that may have reached Twilio."""

from __future__ import annotations

import socket

import pytest

from tenants.context import tenant_context
from tests.gateway.window_support import customer_who_just_wrote
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import delivery, sweeper
from tulia.whatsapp.backends.base import OutgoingMessage, SendError, SendResult
from tulia.whatsapp.backends.twilio_rest import TwilioBackend
from tulia.whatsapp.outbound import send_to_customer

pytestmark = pytest.mark.django_db


class Killed(BaseException):
    pass


class DiesAfterTwilio(TwilioBackend):
    def send(self, message: OutgoingMessage) -> SendResult:
        super().send(message)
        raise Killed


def _only_row(tenant) -> OutboundMessage:
    with tenant_context(tenant.id):
        return OutboundMessage.objects.get()


@pytest.mark.parametrize("twilio_had_it", [True, False])
def test_sweeper_sends_again_only_what_twilio_does_not_have(tenant, twilio, twilio_had_it):
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your order shipped"], "req-1")
    row = _only_row(tenant)
    if twilio_had_it:
        with pytest.raises(Killed):
            delivery.deliver_conversation(tenant.id, row.conversation_id, DiesAfterTwilio())
    else:
        with tenant_context(tenant.id):
            OutboundMessage.objects.update(status=OutboundMessage.Status.SENDING)
    assert _only_row(tenant).status == OutboundMessage.Status.SENDING
    sweeper.sweep()
    delivery.deliver_conversation(tenant.id, row.conversation_id)  # what the task would do
    assert [m.body for m in twilio.sent] == ["Your order shipped"]
    settled = _only_row(tenant)
    assert settled.twilio_sid == twilio.sent[0].sid
    assert settled.status == OutboundMessage.Status.QUEUED


class TimesOutAfterTwilio(TwilioBackend):
    """Twilio accepts the message, then the answer never arrives (a read timeout)."""

    def send(self, message: OutgoingMessage) -> SendResult:
        super().send(message)
        raise SendError("network error: read timed out", retryable=True, in_doubt=True)


def test_a_network_error_after_twilio_accepted_is_looked_up_not_resent(tenant, twilio):
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your order shipped"], "req-1")
    row = _only_row(tenant)
    with pytest.raises(delivery.DeliveryDeferred):
        delivery.deliver_conversation(tenant.id, row.conversation_id, TimesOutAfterTwilio())
    assert _only_row(tenant).status == OutboundMessage.Status.SENDING  # in doubt, not pending
    delivery.deliver_conversation(tenant.id, row.conversation_id)  # the task's retry
    assert [m.body for m in twilio.sent] == ["Your order shipped"]
    assert _only_row(tenant).twilio_sid == twilio.sent[0].sid


def test_a_refused_connection_is_not_in_doubt_and_is_sent_again(tenant, twilio, settings):
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your order shipped"], "req-2")
    row = _only_row(tenant)
    with socket.socket() as closed:  # a port nothing listens on: the request never left
        closed.bind(("127.0.0.1", 0))
        settings.TULIA_TWILIO_API_BASE = f"http://127.0.0.1:{closed.getsockname()[1]}"
        with pytest.raises(delivery.DeliveryDeferred):
            delivery.deliver_conversation(tenant.id, row.conversation_id)
    assert _only_row(tenant).status == OutboundMessage.Status.PENDING
    settings.TULIA_TWILIO_API_BASE = twilio.base_url
    delivery.deliver_conversation(tenant.id, row.conversation_id)
    assert [m.body for m in twilio.sent] == ["Your order shipped"]
