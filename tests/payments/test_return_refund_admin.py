"""Staff take a return from request to refund in admin, and refund a cancelled paid
order; the customer is told each step; an agent cannot send money back."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from payments.models import PaymentMethod, Refund, RefundStatus
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import add_staff_member
from tests.payments.conftest import outbound_bodies
from tests.payments.test_refunds import _paid
from tulia.commerce.models import Order
from tulia.conversations.models import Conversation
from tulia.returns.eligibility import Action
from tulia.returns.models import ReturnRequest
from tulia.returns.service import ReturnAsk, request_return

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


def _login(tenant: Tenant, username: str, role: str) -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _return_request(shop: Tenant, make_order: Any) -> ReturnRequest:
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK)
    with tenant_context(shop.id) as tid:
        Order.objects.filter(pk=order.pk).update(status="delivered", delivered_at=order.paid_at)
        conversation = Conversation.objects.get(tenant_id=tid, customer_id=order.customer_id)
    ask = ReturnAsk(order_reference=order.reference, action=Action.RETURN, reason_text="small")
    outcome = request_return(shop.id, conversation.pk, ask)
    with tenant_context(shop.id):
        return ReturnRequest.objects.get(pk=outcome.return_request_id)


def _act(client: Client, model: str, action: str, pk: int, capture: Any) -> None:
    url = reverse(f"admin:{model}_changelist")
    with capture(execute=True):
        client.post(url, {"action": action, "_selected_action": [pk]})


def test_owner_approves_receives_and_refunds_a_return(
    shop, make_order, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    request = _return_request(shop, make_order)
    owner = _login(shop, "owner_ret", "owner")
    for action in ("approve", "receive", "refund", "refund"):
        _act(owner, "returns_returnrequest", action, request.pk, capture)
    with tenant_context(shop.id):
        request.refresh_from_db()
        [refund] = Refund.objects.all()
    assert (request.decision, request.decided_by) == ("approved", "staff:owner_ret")
    assert request.received_at is not None
    assert (refund.amount, refund.status, refund.idempotency_key) == (
        Decimal(1500),
        RefundStatus.SUCCEEDED,
        f"return:{request.pk}",
    )
    told = " ".join(outbound_bodies(shop))
    assert "is approved" in told
    assert "received the item" in told
    assert "refund of *KES 1,500*" in told or "refund of KES 1,500" in told


def test_an_agent_may_approve_but_not_refund(
    shop, make_order, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    request = _return_request(shop, make_order)
    agent = _login(shop, "agent_ret", "agent")
    _act(agent, "returns_returnrequest", "approve", request.pk, capture)
    _act(agent, "returns_returnrequest", "refund", request.pk, capture)
    with tenant_context(shop.id):
        request.refresh_from_db()
        assert Refund.objects.count() == 0
    assert request.decision == "approved"


def test_a_rejected_return_cannot_be_refunded(
    shop, make_order, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    request = _return_request(shop, make_order)
    owner = _login(shop, "owner_rej", "owner")
    _act(owner, "returns_returnrequest", "reject", request.pk, capture)
    _act(owner, "returns_returnrequest", "refund", request.pk, capture)
    with tenant_context(shop.id):
        assert Refund.objects.count() == 0
    assert any("was not accepted" in text for text in outbound_bodies(shop))


def test_owner_refunds_a_cancelled_paid_order_once(
    shop, make_order, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK)
    with tenant_context(shop.id):
        Order.objects.filter(pk=order.pk).update(status="cancelled", refund_due=True)
    owner = _login(shop, "owner_can", "owner")
    for _ in range(2):
        _act(owner, "commerce_order", "refund_cancelled", order.pk, capture)
    with tenant_context(shop.id):
        [refund] = Refund.objects.all()
        assert Order.objects.get(pk=order.pk).refund_due is False
    assert (refund.idempotency_key, refund.amount) == (f"cancel:{order.pk}", Decimal(1500))
