"""show_privacy_notice (issue 18 §4): a short notice after the first reply a customer
ever gets from the shop, in the conversation's language, through the real webhook."""

from __future__ import annotations

from typing import Any

import pytest

from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.flows.chat import start_webhook_chat
from tulia.conversations.models import OutboundMessage
from tulia.text import say

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def real_turns(settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000


def _notices(tenant: Tenant) -> list[str]:
    with tenant_context(tenant.id):
        rows = OutboundMessage.objects.filter(body__in=_every_notice(tenant))
        return list(rows.values_list("body", flat=True))


def _every_notice(tenant: Tenant) -> list[str]:
    return [say("gateway.privacy_notice", lang, shop=tenant.name) for lang in ("en", "sw", "sheng")]


@pytest.mark.parametrize(
    ("first", "then", "language"),
    [
        ("hi, do you have sneakers?", "size 42 please", "en"),
        ("habari, mna viatu vya nike?", "nataka size 42", "sw"),
        ("niaje msee, uko na sneakers?", "nataka size 42 bana", "sheng"),
    ],
)
def test_first_contact_gets_the_notice_once(
    shop: Tenant, first: str, then: str, language: str
) -> None:
    update_tenant(shop, compliance={**shop.compliance, "show_privacy_notice": True})
    chat = start_webhook_chat(shop)
    reply = chat.send(first)
    notice = say("gateway.privacy_notice", chat.state.get("response_language"), shop=shop.name)
    assert reply.endswith(notice)
    assert chat.state.get("response_language") == language
    chat.send(then)
    assert _notices(shop) == [notice]


def test_switched_off_no_notice(shop: Tenant) -> None:
    update_tenant(shop, compliance={**shop.compliance, "show_privacy_notice": False})
    start_webhook_chat(shop).send("hi, do you have sneakers?")
    assert _notices(shop) == []


def test_stop_as_the_first_word_gets_no_notice(shop: Tenant) -> None:
    update_tenant(shop, compliance={**shop.compliance, "show_privacy_notice": True})
    start_webhook_chat(shop).send("STOP")
    assert _notices(shop) == []
