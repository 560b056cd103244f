"""C2B (Paybill/Till): registration, validation and confirmation, one fixture per event."""

from __future__ import annotations

from decimal import Decimal

import pytest

from payments.accounts import configure_mpesa
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.mpesa.c2b import c2b_instructions, register_c2b_urls
from tenants.context import tenant_context
from tests.payments.conftest import (
    FIXTURE_REFERENCE,
    events_of,
    mpesa_fixture,
    order_of,
    outbound_bodies,
)

pytestmark = pytest.mark.django_db
Outcome = PaymentEvent.Outcome
FORBIDDEN_IN_URL = ("mpesa", "m-pesa", "safaricom", "exe", "exec", "cmd", "sql", "query")


@pytest.fixture
def order(shop, make_order):
    return make_order(shop, 1500, ref=FIXTURE_REFERENCE)


@pytest.fixture
def confirm(daraja, post_callback, deliver_status_results):
    """M-Pesa records the payment, posts the confirmation, answers Transaction Status."""

    def run(tenant, body: str, trans_id: str = "TKN2L5Y7QA", amount: str = "1500.00"):
        daraja.record_c2b(trans_id, "174379", amount)
        response = post_callback(tenant, "c2b_confirmation", body)
        deliver_status_results()
        return response

    return run


def c2b_payments(tenant) -> list[PaymentRequest]:
    with tenant_context(tenant.id) as tid:
        return list(PaymentRequest.objects.filter(tenant_id=tid, method=PaymentMethod.MPESA_C2B))


def test_registration_sends_clean_tenant_urls(shop, daraja) -> None:
    answer = register_c2b_urls(shop.id)
    assert answer.response_code == "0"
    urls = daraja.c2b_urls["174379"]
    for url in urls.values():
        assert not any(word in url.lower() for word in FORBIDDEN_IN_URL), url
    assert urls["confirmation"].endswith("/c2b/confirm/")


def test_instructions_give_paybill_and_the_orders_reference(shop, order) -> None:
    found = c2b_instructions(shop.id, order.pk)
    assert (found.kind, found.business_number, found.account_reference, found.amount) == (
        "paybill",
        "174379",
        FIXTURE_REFERENCE,
        1500,
    )


def test_confirmation_waits_for_transaction_status_then_pays_the_order(
    shop, order, daraja, post_callback, deliver_status_results
) -> None:
    daraja.record_c2b("TKN2L5Y7QA", "174379", "1500.00")
    response = post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    assert response.json() == {"ResultCode": 0, "ResultDesc": "Success"}
    [payment] = c2b_payments(shop)
    assert payment.status == PaymentStatus.PENDING_VERIFICATION
    assert order_of(shop, order.pk).status == "draft"
    assert "confirming it with M-Pesa" in outbound_bodies(shop)[-1]
    [call] = daraja.status_calls
    assert (call["TransactionID"], call["Initiator"], call["PartyA"]) == (
        "TKN2L5Y7QA",
        "tulia-api",
        "174379",
    )
    deliver_status_results()
    [payment] = c2b_payments(shop)
    assert (payment.status, payment.receipt, payment.order_id) == (
        PaymentStatus.PAID,
        "TKN2L5Y7QA",
        order.pk,
    )
    assert order_of(shop, order.pk).status == "paid"
    assert "TKN2L5Y7QA" in outbound_bodies(shop)[-1]


def test_hashed_msisdn_and_sloppy_reference_still_match(shop, order, confirm) -> None:
    confirm(shop, mpesa_fixture("c2b_confirmation_hashed_msisdn.json"))
    assert order_of(shop, order.pk).status == "paid"


def test_duplicate_confirmation_changes_nothing(shop, order, confirm, post_callback) -> None:
    body = mpesa_fixture("c2b_confirmation.json")
    confirm(shop, body)
    for _ in range(2):
        post_callback(shop, "c2b_confirmation", body)
    assert len(c2b_payments(shop)) == 1
    outcomes = [e.outcome for e in events_of(shop, kind="c2b_confirmation")]
    assert outcomes == [Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE]
    assert sum("Payment received" in body for body in outbound_bodies(shop)) == 1


def test_without_an_initiator_staff_decide_and_nothing_is_asked(
    shop, order, daraja, post_callback
) -> None:
    configure_mpesa(shop.id, initiator_name="")
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    [payment] = c2b_payments(shop)
    assert payment.status == PaymentStatus.PENDING_VERIFICATION
    assert daraja.status_calls == []
    [event] = events_of(shop)
    assert "staff confirm" in event.note


def test_unknown_reference_is_kept_as_unknown_money(shop, order, post_callback) -> None:
    post_callback(
        shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation_unknown_reference.json")
    )
    [payment] = c2b_payments(shop)
    assert (payment.status, payment.needs_review, payment.order_id) == (
        PaymentStatus.UNKNOWN,
        True,
        None,
    )
    assert payment.paid_amount == Decimal("1500.00")
    [event] = events_of(shop)
    assert (event.outcome, event.needs_review) == (Outcome.UNMATCHED, True)
    assert order_of(shop, order.pk).status == "draft"


def test_wrong_amount_is_a_mismatch_and_the_order_stays_unpaid(shop, make_order, confirm) -> None:
    order = make_order(shop, 2000, ref=FIXTURE_REFERENCE)
    confirm(shop, mpesa_fixture("c2b_confirmation.json"))
    [payment] = c2b_payments(shop)
    assert (payment.status, payment.needs_review) == (PaymentStatus.UNKNOWN, True)
    assert order_of(shop, order.pk).status == "draft"


def test_second_payment_for_a_paid_order_is_flagged(shop, order, confirm) -> None:
    confirm(shop, mpesa_fixture("c2b_confirmation.json"))
    second = mpesa_fixture("c2b_confirmation.json", TKN2L5Y7QA="TKN2L5Y7QB")
    confirm(shop, second, trans_id="TKN2L5Y7QB")
    flagged = [p for p in c2b_payments(shop) if p.receipt == "TKN2L5Y7QB"]
    assert flagged[0].needs_review
    assert "already paid" in flagged[0].review_reason
    assert order_of(shop, order.pk).payment_reference == "TKN2L5Y7QA"


def test_malformed_confirmation_is_kept_for_review(shop, order, post_callback) -> None:
    response = post_callback(shop, "c2b_confirmation", '{"TransID": ')
    assert response.status_code == 200
    [event] = events_of(shop)
    assert (event.outcome, event.needs_review) == (Outcome.INVALID, True)


def test_strangers_url_cannot_pay_this_tenants_order(
    shop, other_shop, order, post_callback
) -> None:
    post_callback(other_shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    assert order_of(shop, order.pk).status == "draft"
    assert events_of(shop) == []
    assert c2b_payments(shop) == []
    [foreign] = c2b_payments(other_shop)
    assert (foreign.status, foreign.needs_review) == (PaymentStatus.UNKNOWN, True)


def test_validation_accepts_everything_unless_the_tenant_enables_it(
    shop, order, post_callback
) -> None:
    unknown = mpesa_fixture("c2b_validation.json", **{FIXTURE_REFERENCE: "NOPE"})
    assert post_callback(shop, "c2b_validation", unknown).json()["ResultCode"] == "0"
    configure_mpesa(shop.id, validate_c2b=True)
    assert post_callback(shop, "c2b_validation", unknown).json() == {
        "ResultCode": "C2B00012",
        "ResultDesc": "Rejected",
    }
    wrong_amount = mpesa_fixture("c2b_validation.json", **{'"1500.00"': '"15.00"'})
    assert post_callback(shop, "c2b_validation", wrong_amount).json()["ResultCode"] == "C2B00013"
    good = mpesa_fixture("c2b_validation.json")
    assert post_callback(shop, "c2b_validation", good).json()["ResultCode"] == "0"
    outcomes = [e.outcome for e in events_of(shop)]
    assert outcomes == [Outcome.ACCEPTED, Outcome.REJECTED, Outcome.REJECTED, Outcome.ACCEPTED]
