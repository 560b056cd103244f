"""The inbound webhook, one Twilio event fixture per test."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from tenants.context import tenant_context
from tulia.conversations.models import InboundMessage
from tulia.whatsapp.views import EMPTY_TWIML

from .conftest import TOKEN_B, event, sign

pytestmark = pytest.mark.django_db


def _stored(tenant_id) -> list[InboundMessage]:
    with tenant_context(tenant_id):
        return list(InboundMessage.objects.order_by("id"))


def _accept(post_signed, tenant, name: str, **overrides: str) -> InboundMessage:
    response = post_signed("inbound", event(name, **overrides))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/xml")
    assert response.content.decode() == EMPTY_TWIML
    (message,) = _stored(tenant.id)
    return message


def test_inbound_text_is_stored_and_its_turn_enqueued_after_commit(
    post_signed, tenant, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        message = _accept(post_signed, tenant, "inbound_text")
    assert len(callbacks) == 1
    assert message.kind == "text"
    assert message.body == "Hi, I want to pay"
    assert message.from_e164 == "+254712345678"
    assert message.status == InboundMessage.Status.RECEIVED
    assert message.content["profile_name"] == "Jane W"
    assert len(message.request_id) == 32


def test_inbound_button_reply_keeps_payload_and_title(post_signed, tenant) -> None:
    message = _accept(post_signed, tenant, "inbound_button_reply")
    assert message.kind == "button"
    assert message.content["button_payload"] == "confirm_order_123"
    assert message.body == "Confirm"
    assert message.content["replied_to_sid"].startswith("SM5c")


def test_inbound_list_reply_keeps_item_id(post_signed, tenant) -> None:
    message = _accept(post_signed, tenant, "inbound_list_reply")
    assert message.kind == "list"
    assert message.content["list_id"] == "item_af1_white"
    assert message.body == "Air Force 1 White"


def test_inbound_image_stores_media_metadata_and_caption(post_signed, tenant) -> None:
    message = _accept(post_signed, tenant, "inbound_image")
    assert message.kind == "image"
    assert message.body == "Do you have this one?"
    (media,) = message.content["media"]
    assert media["content_type"] == "image/jpeg"
    assert media["url"].startswith("https://api.twilio.com/2010-04-01/Accounts/")


def test_inbound_voice_note_is_a_voice_message(post_signed, tenant) -> None:
    message = _accept(post_signed, tenant, "inbound_voice_note")
    assert message.kind == "voice"
    assert message.content["media"][0]["content_type"] == "audio/ogg"


def test_inbound_sticker_is_recognised_from_webp(post_signed, tenant) -> None:
    assert _accept(post_signed, tenant, "inbound_sticker").kind == "sticker"


def test_inbound_document_is_a_document(post_signed, tenant) -> None:
    assert _accept(post_signed, tenant, "inbound_document").kind == "document"


def test_inbound_location_keeps_coordinates_and_place(post_signed, tenant) -> None:
    message = _accept(post_signed, tenant, "inbound_location")
    assert message.kind == "location"
    location = message.content["location"]
    assert location["latitude"] == pytest.approx(-1.286389)
    assert location["longitude"] == pytest.approx(36.817223)
    assert location["label"] == "Office"


def test_inbound_text_is_sanitised_and_capped(post_signed, tenant) -> None:
    body = "\x00he\x07llo\u202e " + "x" * 5000
    message = _accept(post_signed, tenant, "inbound_text", Body=body)
    assert message.body.startswith("hello ")
    assert len(message.body) == 4096


def test_inbound_empty_text_is_accepted(post_signed, tenant) -> None:
    assert _accept(post_signed, tenant, "inbound_text", Body="").body == ""


def test_duplicate_delivery_stores_once_and_enqueues_once(
    post_signed, tenant, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        first = post_signed("inbound", event("inbound_text"))
        second = post_signed("inbound", event("inbound_text", Body="changed on retry"))
    assert (first.status_code, second.status_code) == (200, 200)
    assert len(callbacks) == 1
    (message,) = _stored(tenant.id)
    assert message.body == "Hi, I want to pay"


def test_bad_signature_is_403_and_stores_nothing(post_signed, tenant, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="tulia.security"):
        response = post_signed("inbound", event("inbound_text"), signature="bm90LXZhbGlk")
    assert response.status_code == 403
    assert _stored(tenant.id) == []
    assert "bad or missing signature" in caplog.text


def test_missing_signature_is_403(client, tenant) -> None:
    response = client.post(reverse("whatsapp:inbound"), event("inbound_text"))
    assert response.status_code == 403
    assert _stored(tenant.id) == []


def test_signature_over_a_tampered_body_is_403(post_signed, tenant) -> None:
    form = event("inbound_text")
    signature = sign(reverse("whatsapp:inbound"), form, "token-a-123456789")
    response = post_signed("inbound", {**form, "Body": "pay 1 shilling"}, signature=signature)
    assert response.status_code == 403


def test_signature_uses_public_base_url_not_the_host_header(post_signed, tenant) -> None:
    # Behind a TLS-terminating proxy we see another host and scheme than Twilio signed.
    response = post_signed(
        "inbound", event("inbound_text"), Host="localhost:9999", X_Forwarded_Proto="https"
    )
    assert response.status_code == 200
    assert len(_stored(tenant.id)) == 1


def test_unknown_number_is_404_and_stores_nothing(post_signed, tenant) -> None:
    response = post_signed("inbound", event("inbound_text", To="whatsapp:+254799999999"))
    assert response.status_code == 404
    assert _stored(tenant.id) == []


def test_malformed_form_is_400(post_signed, tenant) -> None:
    response = post_signed("inbound", event("inbound_text", MessageSid="not-a-sid"))
    assert response.status_code == 400
    assert _stored(tenant.id) == []


def test_missing_to_is_400(post_signed, tenant) -> None:
    form = event("inbound_text")
    del form["To"]
    assert post_signed("inbound", form).status_code == 400


def test_get_is_not_allowed(client, tenant) -> None:
    assert client.get(reverse("whatsapp:inbound")).status_code == 405


def test_account_sid_of_another_account_is_403(post_signed, tenant) -> None:
    response = post_signed("inbound", event("inbound_text", AccountSid="AC" + "c" * 32))
    assert response.status_code == 403
    assert _stored(tenant.id) == []


def test_stranger_token_cannot_post_to_tenant_number(post_signed, tenant, stranger) -> None:
    response = post_signed("inbound", event("inbound_text"), token=TOKEN_B)
    assert response.status_code == 403
    assert _stored(tenant.id) == []
    assert _stored(stranger.id) == []


def test_message_to_stranger_is_stored_only_for_stranger(post_signed, tenant, stranger) -> None:
    form = event("inbound_text", To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32)
    assert post_signed("inbound", form, token=TOKEN_B).status_code == 200
    assert _stored(tenant.id) == []
    assert [m.message_sid for m in _stored(stranger.id)] == [form["MessageSid"]]


def test_same_sid_at_two_tenants_is_two_messages(post_signed, tenant, stranger) -> None:
    post_signed("inbound", event("inbound_text"))
    form = event("inbound_text", To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32)
    post_signed("inbound", form, token=TOKEN_B)
    assert len(_stored(tenant.id)) == 1
    assert len(_stored(stranger.id)) == 1


def test_message_carries_the_webhook_request_id(post_signed, tenant) -> None:
    response = post_signed("inbound", event("inbound_text"))
    (message,) = _stored(tenant.id)
    assert response["X-Request-ID"] == message.request_id
