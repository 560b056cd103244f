"""'Where is my order?' through the real signed webhook, after staff moved the order:
the answer is the latest lifecycle step, when it happened, and the tracking note."""

from __future__ import annotations

from typing import Any

import pytest

from tenants.models import Tenant
from tests.commerce import factories as f
from tests.flows.chat import start_webhook_chat
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import Order
from tulia.commerce.orders import mark_order_paid

pytestmark = pytest.mark.django_db


def _paid_order(shop: Tenant, customer_id: int) -> Order:
    item = f.item(shop, "Canvas Tote", 900)
    order = create_order(shop.id, customer_id, [LineRequest(item.pk, 1)])
    return mark_order_paid(shop.id, order.pk, payment_reference="QK12ABC")


def _shipped_order(shop: Tenant, customer_id: int) -> str:
    order = _paid_order(shop, customer_id)
    for step in ("confirmed", "packed"):
        move_order(shop.id, order.pk, step, actor="staff:owner")
    move_order(shop.id, order.pk, "shipped", actor="staff:owner", note="rider Juma, boda KMDA")
    return order.reference


def test_where_is_my_order_reports_shipped_with_the_tracking_note(
    shop: Tenant, settings: Any
) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    chat = start_webhook_chat(shop)
    reference = _shipped_order(shop, chat.customer.pk)
    reply = chat.send(f"where is my order {reference}?")
    assert reference in reply
    assert "on the way" in reply  # the catalog's words for "shipped"
    assert "Delivery details: rider Juma, boda KMDA" in reply
    assert "Last update:" in reply


def test_before_shipping_there_is_no_tracking_note(shop: Tenant, settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    chat = start_webhook_chat(shop)
    order = _paid_order(shop, chat.customer.pk)
    move_order(shop.id, order.pk, "confirmed", actor="staff:owner")
    reply = chat.send(f"where is my order {order.reference}?")
    assert "confirmed" in reply
    assert "Delivery details" not in reply
