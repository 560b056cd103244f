"""Outbound: queueing, splitting, and delivery through the real twilio client."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tenants.errors import NotFound
from tests.hypothesis_profiles import examples
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import delivery
from tulia.whatsapp.backends import CONSOLE, TWILIO, backend_path
from tulia.whatsapp.outbound import queue_reply, send_to_customer
from tulia.whatsapp.splitting import TWILIO_BODY_LIMIT, split_body

from .conftest import SID_A
from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db
Status = OutboundMessage.Status


@pytest.fixture
def customer(tenant):
    return customer_who_just_wrote(tenant.id)


def _rows(tenant_id) -> list[OutboundMessage]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.order_by("id"))


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=6000))
@hsettings(max_examples=examples(150), deadline=None)
def test_split_parts_fit_twilio_and_keep_every_character(text: str) -> None:
    parts = split_body(text)
    assert all(0 < len(part) <= TWILIO_BODY_LIMIT for part in parts)
    assert "".join("".join(parts).split()) == "".join(text.split())


def test_split_prefers_sentence_boundaries() -> None:
    sentence = "Air Force 1 in white is KES 12,500. "
    parts = split_body(sentence * 100)
    assert len(parts) == 3
    assert all(part.endswith(".") for part in parts)


def test_send_to_customer_opens_a_conversation_and_queues_parts(tenant, customer) -> None:
    ids = send_to_customer(tenant.id, customer.pk, ["Paid, thank you!", "x. " * 700], "req-1")
    rows = _rows(tenant.id)
    assert [row.pk for row in rows] == ids
    assert [(row.part_index, row.part_count) for row in rows] == [(0, 1), (0, 2), (1, 2)]
    assert {row.status for row in rows} == {Status.PENDING}
    assert {row.request_id for row in rows} == {"req-1"}


def test_send_to_customer_of_another_tenant_is_not_found(tenant, stranger, customer) -> None:
    with pytest.raises(NotFound):
        send_to_customer(stranger.id, customer.pk, ["hello"], "req-2")
    assert _rows(stranger.id) == []
    assert _rows(tenant.id) == []


def test_queue_reply_to_another_tenants_conversation_is_not_found(tenant, stranger, customer):
    send_to_customer(tenant.id, customer.pk, ["hi"], "req-3")
    conversation_id = _rows(tenant.id)[0].conversation_id
    with pytest.raises(NotFound):
        queue_reply(stranger.id, conversation_id, ["sneaky"], "req-4")
    assert len(_rows(tenant.id)) == 1


def test_backend_defaults_to_console_without_a_twilio_base(settings) -> None:
    settings.TULIA_TWILIO_API_BASE = None
    settings.TULIA_WHATSAPP_BACKEND = None
    assert backend_path() == CONSOLE
    settings.TULIA_TWILIO_API_BASE = "http://127.0.0.1:9"
    assert backend_path() == TWILIO


def test_console_backend_marks_parts_sent(tenant, customer, settings) -> None:
    settings.TULIA_WHATSAPP_BACKEND = CONSOLE
    send_to_customer(tenant.id, customer.pk, ["one", "two"], "req-5")
    conversation_id = _rows(tenant.id)[0].conversation_id
    assert delivery.deliver_conversation(tenant.id, conversation_id) == 2
    rows = _rows(tenant.id)
    assert {(row.status, row.backend) for row in rows} == {(Status.SENT, "console")}


def test_twilio_backend_sends_parts_in_order_through_the_emulator(tenant, customer, twilio):
    send_to_customer(tenant.id, customer.pk, ["first", "second. " * 300, "third"], "req-6")
    conversation_id = _rows(tenant.id)[0].conversation_id
    assert delivery.deliver_conversation(tenant.id, conversation_id) == 4
    sent = twilio.sent
    assert [message.body for message in sent] == [row.body for row in _rows(tenant.id)]
    assert {(m.to, m.from_, m.account_sid) for m in sent} == {
        ("whatsapp:+254712345678", "whatsapp:+254711000001", SID_A)
    }
    assert sent[0].status_callback.endswith("/whatsapp/status")
    rows = _rows(tenant.id)
    assert [row.twilio_sid for row in rows] == [message.sid for message in sent]
    assert {row.status for row in rows} == {Status.QUEUED}


def test_429_defers_and_keeps_later_parts_behind(tenant, customer, twilio) -> None:
    send_to_customer(tenant.id, customer.pk, ["one", "two"], "req-7")
    conversation_id = _rows(tenant.id)[0].conversation_id
    twilio.fail_next(1, status=429)
    with pytest.raises(delivery.DeliveryDeferred):
        delivery.deliver_conversation(tenant.id, conversation_id)
    assert [row.status for row in _rows(tenant.id)] == [Status.PENDING, Status.PENDING]
    assert _rows(tenant.id)[0].error_code == 20429
    assert delivery.deliver_conversation(tenant.id, conversation_id) == 2
    assert [message.body for message in twilio.sent] == ["one", "two"]


def test_500_is_retried_until_the_attempt_limit_then_failed(tenant, customer, twilio) -> None:
    send_to_customer(tenant.id, customer.pk, ["one"], "req-8")
    conversation_id = _rows(tenant.id)[0].conversation_id
    twilio.fail_next(delivery.MAX_SEND_ATTEMPTS, status=500)
    for _ in range(delivery.MAX_SEND_ATTEMPTS - 1):
        with pytest.raises(delivery.DeliveryDeferred):
            delivery.deliver_conversation(tenant.id, conversation_id)
    assert delivery.deliver_conversation(tenant.id, conversation_id) == 0
    (row,) = _rows(tenant.id)
    assert (row.status, row.error_code, row.attempts) == (Status.FAILED, 20500, 6)


def test_permanent_rejection_is_recorded_and_next_part_still_goes(tenant, customer, twilio):
    send_to_customer(tenant.id, customer.pk, ["one", "two"], "req-9")
    conversation_id = _rows(tenant.id)[0].conversation_id
    twilio.add_account(SID_A, "rotated-token")  # our stored token is now wrong: 401
    assert delivery.deliver_conversation(tenant.id, conversation_id) == 0
    assert {(row.status, row.error_code) for row in _rows(tenant.id)} == {(Status.FAILED, 20003)}


def test_stranger_cannot_deliver_tenant_messages(tenant, stranger, customer, twilio) -> None:
    send_to_customer(tenant.id, customer.pk, ["one"], "req-10")
    conversation_id = _rows(tenant.id)[0].conversation_id
    assert delivery.deliver_conversation(stranger.id, conversation_id) == 0
    assert twilio.sent == []
    assert _rows(tenant.id)[0].status == Status.PENDING
