"""Forged payment notices, sent the way an attacker would: over real HTTP, to the live
server, WITH the right callback secret (it leaked, or the attacker runs a shop too).

Each forgery leaves the order unpaid. Each has a mirror: the emulated provider really
takes the same payment, and the order becomes paid exactly once. A wrong secret getting
a 404 proves nothing here; the secret is assumed known.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from payments.emulators.daraja import DarajaEmulator, StkScript
from payments.emulators.pesapal import PesapalEmulator
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.mpesa.c2b import register_c2b_urls
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from payments.routes import callback_url
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import get_or_create_customer
from tests.payments.conftest import (  # noqa: F401 - the payments fixtures, shared
    CREDENTIAL,
    INITIATOR,
    SANDBOX_PASSKEY,
    eager_celery,
    equip,
    order_of,
    outbound_bodies,
)
from tulia.commerce.models import Order

pytestmark = pytest.mark.django_db(transaction=True)
SHORTCODE = "174379"


@pytest.fixture
def mpesa() -> Iterator[DarajaEmulator]:
    with DarajaEmulator("ck-kicks", "cs-kicks-secret", SANDBOX_PASSKEY) as emulator:
        assert isinstance(emulator, DarajaEmulator)
        emulator.add_initiator(INITIATOR, CREDENTIAL)
        yield emulator


@pytest.fixture
def card() -> Iterator[PesapalEmulator]:
    with PesapalEmulator("pk-kicks", "ps-kicks-secret") as emulator:
        assert isinstance(emulator, PesapalEmulator)
        yield emulator


@pytest.fixture
def victim(tenant: Tenant, mpesa, card, live_server, settings) -> Tenant:
    settings.PUBLIC_BASE_URL = live_server.url
    equip(tenant, mpesa.base_url, card.base_url)
    register_c2b_urls(tenant.id)
    return tenant


@pytest.fixture
def attackers_shop(stranger: Tenant, mpesa, card, victim) -> Tenant:
    """The attacker runs a shop on the platform: its secrets are theirs to read."""
    return equip(stranger, mpesa.base_url, card.base_url)


def new_order(tenant: Tenant, total: int) -> Order:
    customer, _ = get_or_create_customer(tenant.id, "0712345678")
    with tenant_context(tenant.id) as tid:
        return Order.objects.create(
            tenant_id=tid,
            customer=customer,
            reference=f"F{uuid.uuid4().hex[:6].upper()}",
            subtotal=Decimal(total),
            total=Decimal(total),
        )


def post(tenant: Tenant, name: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(callback_url(tenant.id, name), json=body, timeout=30)


def paid_exactly_once(tenant: Tenant, order: Order, receipt: str = "") -> None:
    settled = order_of(tenant, order.pk)
    assert settled.status == "paid"
    if receipt:
        assert settled.payment_reference == receipt
    with tenant_context(tenant.id) as tid:
        paid = PaymentRequest.objects.filter(
            tenant_id=tid, order_id=order.pk, status=PaymentStatus.PAID
        )
        assert paid.count() == 1
    assert sum("Payment received" in body for body in outbound_bodies(tenant)) == 1


def unpaid(tenant: Tenant, order: Order) -> None:
    assert order_of(tenant, order.pk).status in ("draft", "pending_payment")
    assert not any("Payment received" in body for body in outbound_bodies(tenant))


def suspected(tenant: Tenant, order: Order) -> PaymentRequest:
    with tenant_context(tenant.id) as tid:
        payment = PaymentRequest.objects.get(tenant_id=tid, order_id=order.pk)
        flagged = PaymentEvent.objects.filter(
            tenant_id=tid, needs_review=True, note__startswith="suspected forgery"
        )
        assert flagged.exists(), "nothing in the reconciliation queue"
    assert (payment.status, payment.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert "could not confirm" in outbound_bodies(tenant)[-1]
    return payment


def c2b_body(order: Order, amount: str, trans_id: str = "") -> dict[str, Any]:
    """What the bot's own message gives away: Paybill, account reference, amount."""
    return {
        "TransactionType": "Pay Bill",
        "TransID": trans_id or f"TK{uuid.uuid4().hex[:8].upper()}",
        "TransTime": "20261125101500",
        "TransAmount": amount,
        "BusinessShortCode": SHORTCODE,
        "BillRefNumber": order.reference,
        "InvoiceNumber": "",
        "OrgAccountBalance": "",
        "ThirdPartyTransID": "",
        "MSISDN": "2547 ***** 999",
        "FirstName": "MALLORY",
    }


# --- C2B confirmation --------------------------------------------------------------------
def test_forged_c2b_confirmation_leaves_the_order_unpaid(victim, mpesa) -> None:
    order = new_order(victim, 1500)
    answer = post(victim, "c2b_confirmation", c2b_body(order, "1500.00"))
    assert answer.json() == {"ResultCode": 0, "ResultDesc": "Success"}  # Daraja's ack only
    mpesa.wait_for_callbacks()
    unpaid(victim, order)
    suspected(victim, order)


def test_real_c2b_payment_is_paid_exactly_once(victim, mpesa) -> None:
    order = new_order(victim, 1500)
    result = mpesa.simulate_c2b(SHORTCODE, "1500.00", order.reference)
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order, result["body"]["TransID"])


# --- STK callback ----------------------------------------------------------------------
def stk_success(payment: PaymentRequest, receipt: str = "TKFORGED01") -> dict[str, Any]:
    items = [
        {"Name": "Amount", "Value": float(payment.amount)},
        {"Name": "MpesaReceiptNumber", "Value": receipt},
        {"Name": "TransactionDate", "Value": 20261125101500},
        {"Name": "PhoneNumber", "Value": int(payment.phone_e164.lstrip("+"))},
    ]
    callback = {
        "MerchantRequestID": payment.merchant_request_id,
        "CheckoutRequestID": payment.provider_reference,
        "ResultCode": 0,
        "ResultDesc": "The service request is processed successfully.",
        "CallbackMetadata": {"Item": items},
    }
    return {"Body": {"stkCallback": callback}}


def push(tenant: Tenant) -> tuple[Order, PaymentRequest]:
    order = new_order(tenant, 1500)
    return order, initiate_stk_push(tenant.id, order.pk, confirmed_amount=Decimal(1500))


@pytest.mark.parametrize(
    "customer",
    [StkScript(answered=False), StkScript(result_code=1032, deliver=False)],
    ids=["ignores-the-prompt", "cancels"],
)
def test_forged_stk_success_leaves_the_order_unpaid(victim, mpesa, customer):
    mpesa.scripts.append(customer)
    order, payment = push(victim)
    mpesa.wait_for_callbacks()
    assert post(victim, "stk_callback", stk_success(payment)).status_code == 200
    unpaid(victim, order)
    suspected(victim, order)


def test_real_stk_payment_is_paid_exactly_once(victim, mpesa) -> None:
    mpesa.script(result_code=0)
    order, payment = push(victim)
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order, mpesa.pushes[payment.provider_reference].receipt)


def test_real_stk_payment_with_a_slow_query_is_paid_exactly_once(victim, mpesa) -> None:
    mpesa.script(result_code=0, query_pending=2)
    order, _ = push(victim)
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order)


# --- PesaPal IPN -----------------------------------------------------------------------
def test_forged_ipn_leaves_the_card_order_unpaid(victim, card) -> None:
    """The tracking id is in the hosted-page URL every card customer sees."""
    order = new_order(victim, 2300)
    payment = create_checkout(victim.id, order.pk, confirmed_amount=Decimal(2300))
    ipn = {
        "OrderTrackingId": payment.provider_reference,
        "OrderMerchantReference": payment.account_reference,
        "OrderNotificationType": "IPNCHANGE",
    }
    assert post(victim, "pesapal_ipn", ipn).json()["status"] == 200
    unpaid(victim, order)
    with tenant_context(victim.id) as tid:
        still = PaymentRequest.objects.get(tenant_id=tid, pk=payment.pk)
    assert still.status == PaymentStatus.PENDING


def test_forged_card_return_visit_changes_nothing(victim, card) -> None:
    order = new_order(victim, 2300)
    payment = create_checkout(victim.id, order.pk, confirmed_amount=Decimal(2300))
    page = httpx.get(
        callback_url(victim.id, "pesapal_return"),
        params={
            "OrderTrackingId": payment.provider_reference,
            "OrderNotificationType": "CALLBACKURL",
        },
    )
    assert "checking your payment" in page.json()["message"]
    unpaid(victim, order)


def test_real_card_payment_is_paid_exactly_once(victim, card) -> None:
    order = new_order(victim, 2300)
    payment = create_checkout(victim.id, order.pk, confirmed_amount=Decimal(2300))
    card.settle(payment.provider_reference, paid=True)
    card.notify(payment.provider_reference)  # PesaPal repeats its IPNs
    paid_exactly_once(victim, order)


# --- Transaction Status result -----------------------------------------------------------
def completed_verdict(trans_id: str, amount: float, conversation: str = "") -> dict[str, Any]:
    params = [
        {"Key": "ReceiptNo", "Value": trans_id},
        {"Key": "TransactionStatus", "Value": "Completed"},
        {"Key": "Amount", "Value": amount},
        {"Key": "CreditPartyName", "Value": f"{SHORTCODE} - Kicks"},
    ]
    return {
        "Result": {
            "ResultType": 0,
            "ResultCode": 0,
            "ResultDesc": "The service request is processed successfully.",
            "OriginatorConversationID": f"tulia-{uuid.uuid4().hex}",
            "ConversationID": conversation or f"AG_20261125_{uuid.uuid4().hex[:20]}",
            "TransactionID": "TKSTATUS01",
            "ResultParameters": {"ResultParameter": params},
        }
    }


def test_forged_transaction_status_verdict_leaves_the_order_unpaid(victim, mpesa) -> None:
    """The attacker forges the confirmation and M-Pesa's verdict on it, first."""
    order = new_order(victim, 1500)
    mpesa.script_status(delay=0.5)  # M-Pesa's real verdict comes a moment later
    body = c2b_body(order, "1500.00")
    post(victim, "c2b_confirmation", body)
    forged = completed_verdict(body["TransID"], 1500.0)
    assert post(victim, "txn_status_result", forged).status_code == 200
    unpaid(victim, order)
    mpesa.wait_for_callbacks()
    unpaid(victim, order)
    suspected(victim, order)


def test_real_transaction_status_verdict_pays_exactly_once(victim, mpesa) -> None:
    order = new_order(victim, 1500)
    mpesa.record_c2b("TKREAL0001", SHORTCODE, "1500.00")
    post(victim, "c2b_confirmation", c2b_body(order, "1500.00", "TKREAL0001"))
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order, "TKREAL0001")


# --- replay ------------------------------------------------------------------------------
def test_replayed_confirmation_and_verdict_cannot_pay_a_second_order(victim, mpesa) -> None:
    first, second = new_order(victim, 1500), new_order(victim, 1500)
    result = mpesa.simulate_c2b(SHORTCODE, "1500.00", first.reference)
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, first, result["body"]["TransID"])
    replayed = {**result["body"], "BillRefNumber": second.reference}
    post(victim, "c2b_confirmation", replayed)
    url, verdict = mpesa.status_results[-1]
    httpx.post(url, json=verdict, timeout=30)
    mpesa.wait_for_callbacks()
    unpaid_second = order_of(victim, second.pk).status
    assert unpaid_second == "draft"
    paid_exactly_once(victim, first, result["body"]["TransID"])


def test_replayed_stk_success_is_a_duplicate(victim, mpesa) -> None:
    mpesa.script(result_code=0)
    order, payment = push(victim)
    mpesa.wait_for_callbacks()
    push_record = mpesa.pushes[payment.provider_reference]
    for _ in range(3):
        assert post(victim, "stk_callback", mpesa.callback_body(push_record)).status_code == 200
    paid_exactly_once(victim, order, push_record.receipt)


# --- wrong amount --------------------------------------------------------------------------
def test_confirmation_claiming_more_than_was_paid_leaves_the_order_unpaid(victim, mpesa) -> None:
    """The attacker really pays KES 10 with the order's reference, then claims 1500."""
    order = new_order(victim, 1500)
    mpesa.record_c2b("TKTEN00001", SHORTCODE, "10.00", order.reference)
    post(victim, "c2b_confirmation", c2b_body(order, "1500.00", "TKTEN00001"))
    mpesa.wait_for_callbacks()
    unpaid(victim, order)
    with tenant_context(victim.id) as tid:
        payment = PaymentRequest.objects.get(tenant_id=tid, method=PaymentMethod.MPESA_C2B)
    assert (payment.status, payment.paid_amount) == (PaymentStatus.UNKNOWN, Decimal("10"))
    assert "amount mismatch" in payment.review_reason


def test_full_amount_paid_for_real_is_paid_exactly_once(victim, mpesa) -> None:
    order = new_order(victim, 1500)
    mpesa.record_c2b("TKFULL0001", SHORTCODE, "1500.00", order.reference)
    post(victim, "c2b_confirmation", c2b_body(order, "1500.00", "TKFULL0001"))
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order, "TKFULL0001")


# --- another shop's secret -----------------------------------------------------------------
def test_the_attackers_own_shop_secret_cannot_pay_the_victims_order(
    victim, attackers_shop, mpesa
) -> None:
    order = new_order(victim, 1500)
    body = c2b_body(order, "1500.00")
    post(attackers_shop, "c2b_confirmation", body)
    post(attackers_shop, "txn_status_result", completed_verdict(body["TransID"], 1500.0))
    mpesa.wait_for_callbacks()
    unpaid(victim, order)
    with tenant_context(victim.id) as tid:
        assert not PaymentRequest.objects.filter(tenant_id=tid).exists()


def test_a_real_payment_to_the_victim_is_paid_exactly_once(victim, attackers_shop, mpesa) -> None:
    order = new_order(victim, 1500)
    result = mpesa.simulate_c2b(SHORTCODE, "1500.00", order.reference)
    mpesa.wait_for_callbacks()
    paid_exactly_once(victim, order, result["body"]["TransID"])
    assert outbound_bodies(attackers_shop) == []
