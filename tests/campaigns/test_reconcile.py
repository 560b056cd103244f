"""The sweeper asks Twilio's message list before sending a part a dead deliverer left
"sending": any reply, not only campaigns, goes at most once."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tests.gateway.window_support import customer_who_just_wrote
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import delivery, sweeper
from tulia.whatsapp.backends.base import OutgoingMessage, SendResult
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
