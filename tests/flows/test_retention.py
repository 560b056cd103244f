"""data_retention_days (issue 18 §4): the beat job anonymises old chats of each shop and
never touches orders, payments, consent or another shop's rows. Real database."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import ConsentEvent, Tenant
from tenants.services import update_tenant
from tests.commerce import factories
from tests.flows.chat import WebhookChat, start_webhook_chat
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import Order
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.conversations.tasks import retention_all, retention_for_tenant

pytestmark = pytest.mark.django_db
RETAIN_DAYS = 30


@pytest.fixture(autouse=True)
def real_turns(settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000


def _age(tenant: Tenant, days: int, *, close: bool) -> None:
    then = timezone.now() - timedelta(days=days)
    with tenant_context(tenant.id):
        InboundMessage.objects.update(received_at=then)
        OutboundMessage.objects.update(created_at=then, status=OutboundMessage.Status.DELIVERED)
        if close:
            Conversation.objects.update(status=Conversation.Status.CLOSED, updated_at=then)


def _chat(tenant: Tenant, phone: str) -> WebhookChat:
    chat = start_webhook_chat(tenant, phone)
    chat.send("STOP")  # a consent record that must outlive the chat text
    return chat


def _bodies(tenant: Tenant) -> list[str]:
    with tenant_context(tenant.id):
        inbound = list(InboundMessage.objects.values_list("body", flat=True))
        return inbound + list(OutboundMessage.objects.values_list("body", flat=True))


def test_old_chats_lose_their_words_and_nothing_else(shop: Tenant, stranger: Tenant) -> None:
    update_tenant(shop, compliance={**shop.compliance, "data_retention_days": RETAIN_DAYS})
    _chat(shop, "0712000001")
    item = factories.item(shop, "Air Runner", 4500)
    order = create_order(shop.id, factories.customer(shop).pk, [LineRequest(item.pk, 1)])
    _age(shop, RETAIN_DAYS + 1, close=True)
    _chat(stranger, "0712000002")
    _age(stranger, RETAIN_DAYS + 1, close=True)  # its own retention is a year

    assert retention_for_tenant(str(shop.id))["inbound"] == 1
    assert set(_bodies(shop)) == {""}
    with tenant_context(shop.id):
        assert Conversation.objects.get().state == {}
        assert Order.objects.get(pk=order.pk).total == order.total
        assert ConsentEvent.objects.count() == 1
    assert "STOP" in _bodies(stranger), "another shop's rows are its own business"
    # Twice is harmless: nothing is left to anonymise.
    assert retention_for_tenant(str(shop.id)) == {"inbound": 0, "outbound": 0, "conversations": 0}


def test_recent_chats_and_open_conversations_are_kept(shop: Tenant) -> None:
    update_tenant(shop, compliance={**shop.compliance, "data_retention_days": RETAIN_DAYS})
    _chat(shop, "0712000001")
    _age(shop, RETAIN_DAYS - 1, close=False)
    assert retention_all() >= 1  # fans out one task per shop (queued for the worker)
    assert retention_for_tenant(str(shop.id))["inbound"] == 0
    assert "STOP" in _bodies(shop)
    with tenant_context(shop.id):
        assert Conversation.objects.get().state != {}
