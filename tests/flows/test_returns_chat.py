"""Returns, exchanges and cancellations through the real signed webhook: the customer
names (or picks) the order, gives the reason, and reads the policy's verdict; one
ReturnRequest and ticket per order and action; a cancel before shipping restocks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.commerce import factories as f
from tests.flows.chat import WebhookChat, start_webhook_chat
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import CatalogItem, Order, OrderStatus
from tulia.commerce.orders import mark_order_paid
from tulia.returns.models import ReturnPolicy, ReturnRequest

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat(shop: Tenant, settings: Any) -> WebhookChat:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    with tenant_context(shop.id) as tid:
        ReturnPolicy.objects.create(tenant_id=tid, return_days=7, final_sale_skus=["FS-1"])
    return start_webhook_chat(shop)


def _paid(shop: Tenant, customer_id: int, name: str = "Canvas Tote", sku: str = "") -> Order:
    item = f.item(shop, name, 900, sku=sku or None)
    order = create_order(shop.id, customer_id, [LineRequest(item.pk, 1)])
    return mark_order_paid(shop.id, order.pk, payment_reference=f"QK{order.pk}ABC")


def _delivered(shop: Tenant, customer_id: int, days_ago: int = 1, **item: str) -> Order:
    order = _paid(shop, customer_id, **item)
    for step in ("confirmed", "packed", "shipped", "delivered"):
        move_order(shop.id, order.pk, step, actor="staff:owner")
    with tenant_context(shop.id) as tid:
        Order.objects.filter(tenant_id=tid, pk=order.pk).update(
            delivered_at=timezone.now() - timedelta(days=days_ago)
        )
        return Order.objects.get(tenant_id=tid, pk=order.pk)


def _requests(shop: Tenant) -> list[ReturnRequest]:
    with tenant_context(shop.id) as tid:
        return list(ReturnRequest.objects.filter(tenant_id=tid).order_by("id"))


def test_return_by_reference_with_reason_gets_the_verdict_and_one_request(
    shop: Tenant, chat: WebhookChat
) -> None:
    order = _delivered(shop, chat.customer.pk, days_ago=2)
    reply = chat.send(f"I want to return {order.reference}, it is too small for me sadly")
    assert "fits our return policy" in reply
    assert "a person will confirm" in reply
    [request] = _requests(shop)
    assert (request.order_id, request.action, request.verdict["reason"]) == (
        order.pk,
        "return",
        "approved",
    )
    assert request.ticket_id is not None


def test_past_the_window_is_told_the_window_and_the_days(shop: Tenant, chat: WebhookChat) -> None:
    order = _delivered(shop, chat.customer.pk, days_ago=10)
    chat.send(f"return {order.reference}")
    reply = chat.send("the colour is not what I expected")
    assert "past our 7-day window (10 days since delivery)" in reply
    assert _requests(shop)[0].verdict["reason"] == "time_expired"


def test_numbered_list_then_swahili_damage_goes_to_manual_review(
    shop: Tenant, chat: WebhookChat
) -> None:
    older = _delivered(shop, chat.customer.pk, name="Jordan 1")
    newer = _delivered(shop, chat.customer.pk, name="Air Max")
    listed = chat.send("nataka kurudisha viatu")
    assert f"1. {newer.reference}: Air Max" in listed
    assert f"2. {older.reference}: Jordan 1" in listed
    asked = chat.send("2")
    assert older.reference in asked
    assert "Jordan 1" in asked
    reply = chat.send("zimeraruka upande wa kushoto")
    assert "Pole kwa uharibifu" in reply
    [request] = _requests(shop)
    assert (request.order_id, request.verdict["reason"]) == (older.pk, "damaged_manual")
    assert request.verdict["manual_review"] is True


def test_final_sale_item_is_excluded(shop: Tenant, chat: WebhookChat) -> None:
    order = _delivered(shop, chat.customer.pk, name="Clearance Slide", sku="FS-1")
    reply = chat.send(f"I'd like a refund for {order.reference} because I changed my mind")
    assert "cannot be returned under our policy" in reply
    [request] = _requests(shop)
    assert (request.action, request.verdict["reason"]) == ("refund", "item_excluded")


def test_not_delivered_order_is_not_promised_a_return(shop: Tenant, chat: WebhookChat) -> None:
    order = _paid(shop, chat.customer.pk)
    reply = chat.send(f"I want to return {order.reference} because it is the wrong colour")
    assert "not show this order as delivered" in reply
    assert "fits our return policy" not in reply


def test_return_policy_question_is_not_a_return_request(shop: Tenant, chat: WebhookChat) -> None:
    chat.send("what is your return policy?")
    assert _requests(shop) == []


def test_another_customers_order_reads_as_unknown(shop: Tenant, chat: WebhookChat) -> None:
    someone = f.customer(shop, "0722000111")
    theirs = _delivered(shop, someone.pk)
    reply = chat.send(f"return {theirs.reference}")
    assert f"couldn't find order {theirs.reference}" in reply
    assert _requests(shop) == []


def test_cancel_before_shipping_restocks_and_owes_the_refund(
    shop: Tenant, chat: WebhookChat
) -> None:
    order = _paid(shop, chat.customer.pk)
    move_order(shop.id, order.pk, "confirmed", actor="staff:owner")
    asked = chat.send("please cancel my order")
    assert f"Cancel order {order.reference}" in asked
    done = chat.send("yes")
    assert f"order {order.reference} is cancelled" in done
    assert "refund" in done
    with tenant_context(shop.id) as tid:
        saved = Order.objects.get(tenant_id=tid, pk=order.pk)
        stock = CatalogItem.objects.get(tenant_id=tid, pk=saved.lines.get().item_id).stock
        event = saved.history.order_by("-id").first()
    assert (saved.status, saved.refund_due, stock) == (OrderStatus.CANCELLED, True, 10)
    assert event is not None
    assert event.actor == f"customer:{chat.customer.pk}"


def test_no_keeps_the_order(shop: Tenant, chat: WebhookChat) -> None:
    order = _paid(shop, chat.customer.pk)
    chat.send(f"cancel order {order.reference}")
    assert "stays as it is" in chat.send("no")
    with tenant_context(shop.id) as tid:
        assert Order.objects.get(tenant_id=tid, pk=order.pk).status == OrderStatus.PAID


def test_shipped_order_cannot_be_cancelled(shop: Tenant, chat: WebhookChat) -> None:
    order = _paid(shop, chat.customer.pk)
    for step in ("confirmed", "packed", "shipped"):
        move_order(shop.id, order.pk, step, actor="staff:owner")
    reply = chat.send(f"cancel my order {order.reference}")
    assert "can no longer be cancelled" in reply
    with tenant_context(shop.id) as tid:
        assert Order.objects.get(tenant_id=tid, pk=order.pk).status == OrderStatus.SHIPPED
