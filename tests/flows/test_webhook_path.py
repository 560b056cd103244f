"""The same journeys through the real webhook: signed Twilio form → stored message →
pipeline → `handle_turn` → stored replies and state (one write per turn)."""

from __future__ import annotations

from typing import Any

import pytest

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.flows.chat import start_webhook_chat
from tests.gateway.conftest import event, post_signed  # noqa: F401 (pytest fixture)
from tulia.conversations import pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage

pytestmark = pytest.mark.django_db


def _turn(tenant: Tenant, post: Any, body: str, n: int) -> list[str]:
    sid = f"SM{n:032x}"
    assert post("inbound", event("inbound_text", Body=body, MessageSid=sid)).status_code == 200
    with tenant_context(tenant.id):
        message = InboundMessage.objects.get(message_sid=sid)
    pipeline.process_inbound(tenant.id, message.pk)
    with tenant_context(tenant.id):
        return list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))


def test_a_sale_through_the_webhook(shop: Tenant, post_signed: Any, settings: Any) -> None:  # noqa: F811
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    assert "Air Runner Black" in _turn(shop, post_signed, "I want sneakers", 1)[-1]
    assert "41" in _turn(shop, post_signed, "1", 2)[-1]
    with tenant_context(shop.id):
        conversation = Conversation.objects.get()
    assert conversation.turn_count == 2
    assert conversation.state["sale"]["step"] == "variant"
    assert conversation.state["turn_count"] == 2


def test_a_duplicate_delivery_gets_exactly_one_reply(shop: Tenant, settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    chat = start_webhook_chat(shop)
    reply = chat.send("I want sneakers", duplicate=True)
    assert "Air Runner Black" in reply
    with tenant_context(shop.id):
        assert InboundMessage.objects.count() == 1
        assert OutboundMessage.objects.count() == 1
        assert Conversation.objects.get().turn_count == 1
