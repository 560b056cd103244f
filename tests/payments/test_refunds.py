"""Refunds by the method paid: PesaPal RefundRequest, Daraja Reversal/B2C (result on our
ResultURL, verified by its secret and both conversation ids), else a recorded manual
refund. Never more than paid, never twice."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.accounts import configure_mpesa
from payments.emulators.daraja import DarajaEmulator
from payments.emulators.daraja_refunds import RefundScript
from payments.emulators.pesapal import Checkout, PesapalEmulator
from payments.models import (
    PaymentEvent,
    PaymentMethod,
    PaymentRequest,
    PaymentStatus,
    Refund,
    RefundMethod,
    RefundStatus,
)
from payments.refunds import RefundRefused, paid_amount, paid_payment, refunded, request_refund
from payments.routes import callback_path
from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.hypothesis_profiles import examples
from tests.payments.conftest import outbound_bodies
from tulia.commerce.models import Order
from tulia.conversations.services import open_conversation

pytestmark = pytest.mark.django_db
RECEIPT = "TKR4QX81ZP"


def _paid(shop: Tenant, make_order: Any, method: str, receipt: str = RECEIPT) -> Order:
    """An order paid by `method` (the payment record as the callbacks leave it)."""
    order = make_order(shop, 1500)
    sender = active_senders(shop.id)[0]
    open_conversation(shop.id, order.customer_id, sender.pk)
    with tenant_context(shop.id) as tid:
        PaymentRequest.objects.create(
            tenant_id=tid,
            order=order,
            customer_id=order.customer_id,
            method=method,
            idempotency_key=f"pay-{order.pk}",
            amount=Decimal(1500),
            phone_e164="+254712345678",
            status=PaymentStatus.PAID,
            receipt=receipt,
        )
        Order.objects.filter(pk=order.pk).update(status="paid", paid_at=order.created_at)
        return Order.objects.get(pk=order.pk)


def refundable(shop: Tenant, order_id: int) -> Decimal:
    with tenant_context(shop.id):
        order = Order.objects.get(pk=order_id)
        return paid_amount(order, paid_payment(order)) - refunded(order)


def _refund(shop: Tenant, order: Order, capture: Any, amount: int | None = None) -> Refund:
    with capture(execute=True):
        made = request_refund(
            shop.id,
            order.pk,
            None if amount is None else Decimal(amount),
            key=f"test:{order.pk}",
            actor="staff:owner",
        )
    with tenant_context(shop.id):
        return Refund.objects.get(pk=made.pk)


def _deliver(client: Client, daraja: DarajaEmulator, capture: Any) -> list[int]:
    codes = []
    while daraja.refund_results:
        url, body = daraja.refund_results.pop(0)
        with capture(execute=True):
            answer = client.post(urlsplit(url).path, json.dumps(body), "application/json")
        codes.append(answer.status_code)
    return codes


@pytest.fixture
def reversal_shop(shop: Tenant, daraja: DarajaEmulator) -> Tenant:
    configure_mpesa(shop.id, base_url=daraja.base_url, refund_method="reversal")
    daraja.refund_scripts.append(RefundScript(deliver=False))
    daraja.record_c2b(RECEIPT, "174379", "1500")
    return shop


def test_mpesa_reversal_is_settled_by_the_verified_result(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    order = _paid(reversal_shop, make_order, PaymentMethod.MPESA_C2B)
    refund = _refund(reversal_shop, order, capture, 600)
    assert (refund.method, refund.status) == (RefundMethod.MPESA_REVERSAL, RefundStatus.SUBMITTED)
    [call] = daraja.refund_calls
    assert (call["TransactionID"], call["Amount"]) == (RECEIPT, "600")
    url, body = daraja.refund_results[0]
    assert _deliver(client, daraja, capture) == [200]
    with tenant_context(reversal_shop.id):
        refund.refresh_from_db()
    assert refund.status == RefundStatus.SUCCEEDED
    assert refund.provider_reference == body["Result"]["TransactionID"]
    assert any("KES 600" in text and "M-Pesa" in text for text in outbound_bodies(reversal_shop))
    # Daraja delivers the same result again: nothing changes, nobody is told twice.
    daraja.refund_results.append((url, body))
    _deliver(client, daraja, capture)
    assert sum("KES 600" in text for text in outbound_bodies(reversal_shop)) == 1
    assert refundable(reversal_shop, order.pk) == Decimal(900)


def test_a_result_with_another_conversation_id_changes_nothing(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    order = _paid(reversal_shop, make_order, PaymentMethod.MPESA_C2B)
    refund = _refund(reversal_shop, order, capture)
    url, body = daraja.refund_results.pop(0)
    body["Result"]["ConversationID"] = "AG_20260101_forged"
    daraja.refund_results.append((url, body))
    _deliver(client, daraja, capture)
    with tenant_context(reversal_shop.id):
        refund.refresh_from_db()
        event = PaymentEvent.objects.get(kind=PaymentEvent.Kind.REFUND_RESULT)
    assert refund.status == RefundStatus.SUBMITTED
    assert (event.outcome, event.needs_review) == (PaymentEvent.Outcome.UNMATCHED, True)


def test_refund_results_need_the_refund_secret(reversal_shop, client) -> None:
    path = callback_path(reversal_shop.id, "refund_result")
    stk_secret = callback_path(reversal_shop.id, "stk_callback").split("/")[-3]
    forged = path.replace(path.split("/")[-4], stk_secret)
    assert client.post(forged, "{}", "application/json").status_code == 404


def test_a_failed_reversal_can_be_asked_again_under_its_key(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    order = _paid(reversal_shop, make_order, PaymentMethod.MPESA_C2B, receipt="TKUNKNOWN1")
    first = _refund(reversal_shop, order, capture)
    _deliver(client, daraja, capture)  # the emulator does not know that receipt
    with tenant_context(reversal_shop.id):
        first.refresh_from_db()
    assert first.status == RefundStatus.FAILED
    assert any("did not go through" in text for text in outbound_bodies(reversal_shop))
    daraja.refund_scripts.append(RefundScript(deliver=False))
    again = _refund(reversal_shop, order, capture)
    assert (again.pk, again.status) == (first.pk, RefundStatus.SUBMITTED)


def test_card_refund_goes_through_pesapal_refund_request(
    shop, pesapal: PesapalEmulator, make_order, django_capture_on_commit_callbacks
) -> None:
    pesapal.checkouts["trk-1"] = Checkout(
        body={"amount": 1500.0}, tracking_id="trk-1", status_code=1, confirmation_code="PPCONF1"
    )
    order = _paid(shop, make_order, PaymentMethod.PESAPAL_CARD, receipt="PPCONF1")
    refund = _refund(shop, order, django_capture_on_commit_callbacks)
    # Accepted, not yet done: GetTransactionStatus decides (test_refund_outcomes.py).
    assert (refund.method, refund.status) == (RefundMethod.PESAPAL, RefundStatus.SUBMITTED)
    assert pesapal.refunds == [
        {"confirmation_code": "PPCONF1", "amount": 1500.0, "state": "pending"}
    ]


def test_without_an_mpesa_refund_api_the_refund_is_recorded_as_manual(
    shop, make_order, django_capture_on_commit_callbacks
) -> None:
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK)
    with tenant_context(shop.id):
        Order.objects.filter(pk=order.pk).update(status="cancelled", refund_due=True)
    refund = _refund(shop, order, django_capture_on_commit_callbacks)
    assert (refund.method, refund.status, refund.amount) == (
        RefundMethod.MANUAL,
        RefundStatus.SUCCEEDED,
        Decimal(1500),
    )
    with tenant_context(shop.id):
        assert Order.objects.get(pk=order.pk).refund_due is False
    with pytest.raises(RefundRefused):
        request_refund(shop.id, order.pk, Decimal(1), key="another", actor="staff:owner")


def test_an_unpaid_order_cannot_be_refunded(shop, make_order) -> None:
    order = make_order(shop, 1500)
    with pytest.raises(RefundRefused) as refused:
        request_refund(shop.id, order.pk, None, key="k", actor="staff:owner")
    assert refused.value.facts["reason"] == "not_paid"


def test_another_tenants_order_cannot_be_refunded(shop, other_shop, make_order) -> None:
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK)
    with pytest.raises(Exception):  # noqa: B017,PT011 - NotFound, whatever the layer says
        request_refund(other_shop.id, order.pk, None, key="k", actor="staff:x")
    with tenant_context(shop.id):
        assert Refund.objects.count() == 0


requests = st.lists(
    st.tuples(st.integers(min_value=1, max_value=2000), st.sampled_from("abcd")),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(asked=requests)
def test_never_more_than_paid_and_never_twice(shop, make_order, asked) -> None:
    """Whatever staff ask, in any order: at most one refund per key, the sum of refunds
    never above the 1,500 paid, and a key asked again returns its first refund."""
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK, receipt=f"R{make_order_seq()}")
    first_of: dict[str, int] = {}
    for amount, key in asked:
        try:
            made = request_refund(shop.id, order.pk, Decimal(amount), key=key, actor="staff:o")
        except RefundRefused:
            continue
        assert first_of.setdefault(key, made.pk) == made.pk
    with tenant_context(shop.id):
        rows = list(Refund.objects.filter(order=order))
    assert len({r.idempotency_key for r in rows}) == len(rows)
    assert sum(r.amount for r in rows) <= Decimal(1500)
    assert refundable(shop, order.pk) == Decimal(1500) - sum(r.amount for r in rows)


_seq = iter(range(1, 1_000_000))


def make_order_seq() -> int:
    return next(_seq)


def test_mpesa_b2c_pays_the_phone_that_paid(
    shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    configure_mpesa(shop.id, base_url=daraja.base_url, refund_method="b2c", b2c_shortcode="600990")
    daraja.refund_scripts.append(RefundScript(deliver=False))
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK)
    refund = _refund(shop, order, capture, 1500)
    [call] = daraja.refund_calls
    assert (call["CommandID"], call["PartyA"], call["PartyB"]) == (
        "BusinessPayment",
        "600990",
        "254712345678",
    )
    assert _deliver(client, daraja, capture) == [200]
    with tenant_context(shop.id):
        refund.refresh_from_db()
    assert (refund.method, refund.status) == (RefundMethod.MPESA_B2C, RefundStatus.SUCCEEDED)
