"""A return from chat to money back: the customer asks through the signed webhook in
Swahili, the shop's system approves, records the item back and refunds through the
tenant API (M-Pesa Reversal on the Daraja emulator, result on our callback URL), and
the customer reads each step in Swahili. Exchanges set the wanted size aside, or say
it is not in stock. Another shop's key sees and changes none of it."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from payments.accounts import configure_mpesa
from payments.emulators.daraja_refunds import RefundScript
from payments.models import PaymentMethod, PaymentRequest, PaymentStatus, Refund, RefundStatus
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.flows.chat import WebhookChat, start_webhook_chat
from tests.payments.conftest import eager_celery, outbound_bodies
from tulia.api.keys import issue_key
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import CatalogItem, Order, Variant
from tulia.commerce.orders import mark_order_paid
from tulia.returns.models import ReturnRequest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
__all__ = ["eager_celery"]  # the payments fixture: refund tasks run in-process
RECEIPT = "TKE2E81ZPQ"


@pytest.fixture
def chat(shop: Tenant, settings: Any) -> WebhookChat:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    return start_webhook_chat(shop)


def _api(tenant: Tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'pos').plaintext}")
    return client


def _delivered_sneakers(shop: Tenant, customer_id: int, size: str = "41") -> Order:
    """Air Runner Black in `size`, paid by M-Pesa (receipt known to the emulator)."""
    with tenant_context(shop.id) as tid:
        item = CatalogItem.objects.get(tenant_id=tid, name="Air Runner Black")
        variant = next(v for v in item.variants.all() if v.attributes["size"] == size)
    order = create_order(shop.id, customer_id, [LineRequest(item.pk, 1, variant.pk)])
    mark_order_paid(shop.id, order.pk, payment_reference=RECEIPT)
    with tenant_context(shop.id) as tid:
        PaymentRequest.objects.create(
            tenant_id=tid,
            order=order,
            customer_id=customer_id,
            method=PaymentMethod.MPESA_STK,
            idempotency_key=f"pay-{order.pk}",
            amount=order.total,
            phone_e164="+254712345678",
            status=PaymentStatus.PAID,
            receipt=RECEIPT,
        )
    for step in ("confirmed", "packed", "shipped", "delivered"):
        move_order(shop.id, order.pk, step, actor="staff:owner")
    with tenant_context(shop.id) as tid:
        return Order.objects.get(tenant_id=tid, pk=order.pk)


def _post(api: APIClient, path: str, capture: Any) -> Any:
    with capture(execute=True):
        return api.post(path)


def test_a_swahili_return_is_refunded_by_mpesa_through_the_api(
    shop, chat, daraja, django_capture_on_commit_callbacks, stranger
) -> None:
    capture = django_capture_on_commit_callbacks
    configure_mpesa(shop.id, base_url=daraja.base_url, refund_method="reversal")
    order = _delivered_sneakers(shop, chat.customer.pk)
    daraja.record_c2b(RECEIPT, "174379", str(int(order.total)))
    daraja.refund_scripts.append(RefundScript(deliver=False))

    with tenant_context(shop.id):  # a customer who has been writing in Swahili
        type(chat.customer).objects.filter(pk=chat.customer.pk).update(language_preference="sw")
    reply = chat.send(
        f"habari, nataka kurudisha viatu vya oda {order.reference} kwa sababu ni vidogo sana"
    )
    assert "sera yetu" in reply

    api, theirs = _api(shop), _api(stranger)
    [listed] = api.get("/api/v1/returns/?decision=pending").json()
    assert (listed["order_reference"], listed["action"]) == (order.reference, "return")
    base = f"/api/v1/returns/{listed['id']}"
    assert theirs.get("/api/v1/returns/").json() == []
    assert _post(theirs, f"{base}/approve/", capture).status_code == 404
    assert _post(api, f"{base}/refund/", capture).status_code == 409  # not approved yet
    assert _post(api, f"{base}/approve/", capture).json()["decision"] == "approved"
    assert _post(api, f"{base}/reject/", capture).status_code == 409
    assert _post(api, f"{base}/receive/", capture).json()["received_at"]
    assert _post(theirs, f"{base}/refund/", capture).status_code == 404
    started = _post(api, f"{base}/refund/", capture).json()
    assert (started["method"], started["status"]) == ("mpesa_reversal", "requested")
    assert api.get(f"{base}/").json()["refunds"][0]["status"] == "submitted"  # Daraja took it
    assert _post(api, f"{base}/refund/", capture).json()["id"] == started["id"]  # once

    [(url, body)] = daraja.refund_results
    with capture(execute=True):
        Client().post(urlsplit(url).path, json.dumps(body), content_type="application/json")
    with tenant_context(shop.id):
        refund = Refund.objects.get(pk=started["id"])
    assert (refund.status, refund.amount) == (RefundStatus.SUCCEEDED, order.total)
    told = outbound_bodies(shop)
    assert any("limekubaliwa" in text for text in told)  # approved, in Swahili
    assert any("Tumepokea bidhaa" in text for text in told)
    assert any("Tumekutumia pesa yako" in text and order.reference in text for text in told)
    assert api.get(f"{base}/").json()["refunds"][0]["status"] == "succeeded"


def _exchange(shop: Tenant, chat: WebhookChat, wanted: str) -> int:
    order = _delivered_sneakers(shop, chat.customer.pk)
    chat.send(f"I want to exchange {order.reference} for size {wanted}")
    with tenant_context(shop.id) as tid:
        request = ReturnRequest.objects.get(tenant_id=tid, order=order)
    assert (request.action, request.wanted) == ("exchange", f"size {wanted}")
    return request.pk


def _stock(shop: Tenant, size: str) -> int:
    with tenant_context(shop.id) as tid:
        return next(
            v.stock
            for v in Variant.objects.filter(tenant_id=tid, item__name="Air Runner Black")
            if v.attributes["size"] == size
        )


def test_an_approved_exchange_sets_the_wanted_size_aside(
    shop, chat, django_capture_on_commit_callbacks
) -> None:
    pk = _exchange(shop, chat, "42")
    before = _stock(shop, "42")
    answer = _post(_api(shop), f"/api/v1/returns/{pk}/approve/", django_capture_on_commit_callbacks)
    assert answer.json()["decision"] == "approved"
    assert _stock(shop, "42") == before - 1
    with tenant_context(shop.id):
        assert ReturnRequest.objects.get(pk=pk).replacement_sku
    assert any("size 42 is set aside" in text for text in outbound_bodies(shop))


def test_an_exchange_for_a_size_out_of_stock_stays_open_and_the_customer_hears_why(
    shop, chat, django_capture_on_commit_callbacks
) -> None:
    pk = _exchange(shop, chat, "43")  # the fixture stocks none of size 43
    answer = _post(_api(shop), f"/api/v1/returns/{pk}/approve/", django_capture_on_commit_callbacks)
    assert (answer.status_code, answer.json()["code"]) == (409, "out_of_stock")
    with tenant_context(shop.id):
        assert ReturnRequest.objects.get(pk=pk).decision == ""
    assert any("size 43 is not in stock" in text for text in outbound_bodies(shop))
    assert Decimal(_stock(shop, "43")) == 0
