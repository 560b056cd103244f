"""The turn pipeline run inline: stored message → handler → stored replies."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tenants.services import get_or_create_customer
from tulia.conversations import pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.conversations.services import open_conversation

from .conftest import TOKEN_A, TOKEN_B, event

pytestmark = pytest.mark.django_db


def _receive(post_signed, name: str = "inbound_text", token: str = TOKEN_A, **kw):
    form = event(name, **kw)
    assert post_signed("inbound", form, token=token).status_code == 200
    return form["MessageSid"]


def _message(tenant_id, sid: str) -> InboundMessage:
    with tenant_context(tenant_id):
        return InboundMessage.objects.get(message_sid=sid)


def _replies(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))


def _process(tenant_id, sid: str) -> int:
    return pipeline.process_inbound(tenant_id, _message(tenant_id, sid).pk)


def test_text_turn_is_acknowledged_and_marked_processed(post_signed, tenant) -> None:
    sid = _receive(post_signed)
    assert _process(tenant.id, sid) == 1
    message = _message(tenant.id, sid)
    assert message.status == InboundMessage.Status.PROCESSED
    assert message.attempts == 1
    (reply,) = _replies(tenant.id)
    assert "Kicks Nairobi" in reply
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get()
        assert conversation.customer.phone_e164 == "+254712345678"
        assert conversation.customer.display_name == "Jane W"
        assert conversation.last_inbound_at == message.received_at
        assert OutboundMessage.objects.get().request_id == message.request_id


def test_running_the_same_task_twice_replies_once(post_signed, tenant) -> None:
    sid = _receive(post_signed)
    assert _process(tenant.id, sid) == 1
    assert _process(tenant.id, sid) == 0
    assert len(_replies(tenant.id)) == 1


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("inbound_image", "photo"),
        ("inbound_voice_note", "voice note"),
        ("inbound_location", "location"),
        ("inbound_sticker", "sticker"),
        ("inbound_document", "document"),
    ],
)
def test_non_text_input_gets_a_polite_answer(post_signed, tenant, name, word) -> None:
    _process(tenant.id, _receive(post_signed, name))
    (reply,) = _replies(tenant.id)
    assert word in reply
    assert "type" in reply


def test_non_text_answer_follows_the_customer_language(post_signed, tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "+254712345678")
    with tenant_context(tenant.id):
        customer.language_preference = "sw"
        customer.save(update_fields=["language_preference"])
    _process(tenant.id, _receive(post_signed, "inbound_voice_note"))
    assert "ujumbe wa sauti" in _replies(tenant.id)[0]


def test_non_text_answer_defaults_to_the_shop_language(post_signed, stranger) -> None:
    form = {"To": "whatsapp:+254711000002", "AccountSid": "AC" + "b" * 32}
    sid = _receive(post_signed, "inbound_image", token=TOKEN_B, **form)
    _process(stranger.id, sid)
    assert "picha" in _replies(stranger.id)[0]


def test_empty_text_is_answered(post_signed, tenant) -> None:
    _process(tenant.id, _receive(post_signed, Body=""))
    assert "didn't catch any text" in _replies(tenant.id)[0]


def test_state_returned_by_the_handler_is_persisted_per_turn(post_signed, tenant, settings) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.handlers.remember"
    _process(tenant.id, _receive(post_signed, Body="one"))
    _process(tenant.id, _receive(post_signed, Body="two", MessageSid="SM" + "e" * 32))
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get()
    assert conversation.state == {"seen": ["one", "two"]}
    assert conversation.turn_count == 2
    assert _replies(tenant.id) == ["turn 1", "turn 2"]


def test_handler_failure_keeps_the_message_for_a_retry(post_signed, tenant, settings) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.handlers.explode"
    sid = _receive(post_signed)
    with pytest.raises(pipeline.TurnFailed):
        _process(tenant.id, sid)
    message = _message(tenant.id, sid)
    assert message.status == InboundMessage.Status.RECEIVED
    assert "engine down" in message.last_error
    assert _replies(tenant.id) == []


def test_handler_failing_every_attempt_gives_up_with_an_apology(
    post_signed, tenant, settings
) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.handlers.explode"
    sid = _receive(post_signed)
    for _ in range(pipeline.MAX_TURN_ATTEMPTS - 1):
        with pytest.raises(pipeline.TurnFailed):
            _process(tenant.id, sid)
    _process(tenant.id, sid)
    assert _message(tenant.id, sid).status == InboundMessage.Status.FAILED
    assert _replies(tenant.id) == [pipeline._APOLOGY]


def test_bot_stays_quiet_while_a_human_has_the_conversation(post_signed, tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "+254712345678")
    sender_id = _sender_id(tenant.id)
    conversation = open_conversation(tenant.id, customer.pk, sender_id)
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(status="agent_active")
    sid = _receive(post_signed)
    _process(tenant.id, sid)
    assert _message(tenant.id, sid).status == InboundMessage.Status.PROCESSED
    assert _replies(tenant.id) == []


def _sender_id(tenant_id) -> int:
    from tenants.accessors import active_senders

    return active_senders(tenant_id)[0].pk


def test_stranger_cannot_process_tenant_messages(post_signed, tenant, stranger) -> None:
    sid = _receive(post_signed)
    assert pipeline.process_inbound(stranger.id, _message(tenant.id, sid).pk) == 0
    assert _message(tenant.id, sid).status == InboundMessage.Status.RECEIVED
    assert _replies(tenant.id) == []
    assert _replies(stranger.id) == []


def test_one_open_conversation_per_customer_and_sender(post_signed, tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "+254712345678")
    first = open_conversation(tenant.id, customer.pk, _sender_id(tenant.id))
    again = open_conversation(tenant.id, customer.pk, _sender_id(tenant.id))
    assert first.pk == again.pk


def test_debounce_merges_a_burst_into_one_turn(post_signed, tenant, settings) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.handlers.echo"
    settings.TULIA_TURN_DEBOUNCE_SECONDS = 60  # the burst is still arriving throughout
    first = _receive(post_signed, Body="I want")
    second = _receive(post_signed, Body="size 42", MessageSid="SM" + "d" * 32)
    # The first message's task steps aside for the newer message's task, which answers both.
    assert _process(tenant.id, first) == 0
    assert _replies(tenant.id) == []
    assert _process(tenant.id, second) == 1
    assert _replies(tenant.id) == ["echo: I want + size 42"]
    with tenant_context(tenant.id):
        assert set(InboundMessage.objects.values_list("status", flat=True)) == {"processed"}


def test_a_customer_who_never_pauses_is_still_answered(post_signed, tenant, settings) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.handlers.echo"
    settings.TULIA_TURN_DEBOUNCE_SECONDS = 60
    first = _receive(post_signed, Body="I want")
    _receive(post_signed, Body="size 42", MessageSid="SM" + "d" * 32)
    with tenant_context(tenant.id):
        # The burst has gone on past the cap (three debounce waits).
        InboundMessage.objects.filter(message_sid=first).update(
            received_at=timezone.now() - pipeline.debounce_cap()
        )
    assert _process(tenant.id, first) == 1
    assert _replies(tenant.id) == ["echo: I want + size 42"]


def test_a_message_that_keeps_killing_its_worker_is_given_up(post_signed, tenant) -> None:
    sid = _receive(post_signed)
    with tenant_context(tenant.id):
        # As if claimed MAX times by workers that died before finishing.
        InboundMessage.objects.update(status="processing", attempts=pipeline.MAX_TURN_ATTEMPTS)
    _process(tenant.id, sid)
    assert _message(tenant.id, sid).status == InboundMessage.Status.FAILED
    assert _replies(tenant.id) == [pipeline._APOLOGY]
