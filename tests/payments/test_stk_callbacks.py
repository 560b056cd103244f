"""STK callbacks, one fixture per documented event, through the real endpoint and tasks."""

from __future__ import annotations

from decimal import Decimal

import pytest

from payments.accounts import configure_mpesa
from payments.models import PaymentEvent, PaymentRequest, PaymentStatus
from payments.mpesa.stk import initiate_stk_push
from tests.payments.conftest import (
    events_of,
    mpesa_fixture,
    order_of,
    outbound_bodies,
    payment_of,
)

pytestmark = pytest.mark.django_db
Outcome = PaymentEvent.Outcome


@pytest.fixture
def pushed(shop, daraja, make_order) -> PaymentRequest:
    """A pending STK push whose callback the emulator does not send (the test posts it)."""
    daraja.script(deliver=False)
    order = make_order(shop, 1500)
    return initiate_stk_push(shop.id, order.pk, confirmed_amount=Decimal(1500))


def test_success_marks_payment_and_order_paid_and_tells_the_customer(
    shop, pushed, post_callback
) -> None:
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    response = post_callback(shop, "stk_callback", body)
    assert response.status_code == 200
    assert response.json() == {"ResultCode": 0, "ResultDesc": "Accepted"}
    payment = payment_of(shop, pushed.pk)
    assert (payment.status, payment.receipt) == (PaymentStatus.PAID, "TKM4QX81ZP")
    order = order_of(shop, pushed.order_id)
    assert (order.status, order.payment_reference) == ("paid", "TKM4QX81ZP")
    [message] = outbound_bodies(shop)
    assert "TKM4QX81ZP" in message
    assert "1,500" in message


@pytest.mark.parametrize(
    ("fixture", "status", "words"),
    [
        ("stk_callback_cancelled_1032.json", PaymentStatus.CANCELLED, "cancelled"),
        ("stk_callback_timeout_1037.json", PaymentStatus.TIMEOUT, "did not get an answer"),
        ("stk_callback_insufficient_funds_1.json", PaymentStatus.FAILED, "balance"),
        ("stk_callback_wrong_pin_2001.json", PaymentStatus.FAILED, "PIN"),
    ],
)
def test_failures_leave_the_order_unpaid_and_offer_next_steps(
    *, shop, pushed, post_callback, fixture, status, words
) -> None:
    post_callback(shop, "stk_callback", mpesa_fixture(fixture, pushed.provider_reference))
    assert payment_of(shop, pushed.pk).status == status
    assert order_of(shop, pushed.order_id).status == "pending_payment"
    [message] = outbound_bodies(shop)
    assert words in message
    assert "Reply PAY" in message
    assert f"Paybill 174379, account {order_of(shop, pushed.order_id).reference}" in message


def test_swahili_customer_gets_swahili_outcome(shop, pushed, post_callback) -> None:
    from tenants.context import tenant_context
    from tenants.models import Customer

    with tenant_context(shop.id):
        Customer.objects.filter(pk=pushed.customer_id).update(language_preference="sw")
    body = mpesa_fixture("stk_callback_cancelled_1032.json", pushed.provider_reference)
    post_callback(shop, "stk_callback", body)
    [message] = outbound_bodies(shop)
    assert "lilighairiwa" in message
    assert "Jibu LIPA" in message


def test_same_callback_three_times_changes_state_once(shop, pushed, post_callback) -> None:
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    for _ in range(3):
        assert post_callback(shop, "stk_callback", body).status_code == 200
    outcomes = [e.outcome for e in events_of(shop, kind="stk_callback")]
    assert outcomes == [Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE]
    assert len(outbound_bodies(shop)) == 1
    assert payment_of(shop, pushed.pk).notifications_sent == 1


def test_conflicting_callback_is_kept_flagged_and_not_applied(
    shop, pushed, post_callback, caplog
) -> None:
    ref = pushed.provider_reference
    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_success.json", ref))
    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_cancelled_1032.json", ref))
    payment = payment_of(shop, pushed.pk)
    assert payment.status == PaymentStatus.PAID
    assert payment.needs_review
    conflict = events_of(shop, kind="stk_callback")[-1]
    assert (conflict.outcome, conflict.needs_review) == (Outcome.CONFLICT, True)
    assert any("conflicting result 1032" in r.getMessage() for r in caplog.records)
    assert len(outbound_bodies(shop)) == 1


def test_wrong_amount_is_kept_for_reconciliation_and_order_stays_unpaid(
    shop, pushed, post_callback
) -> None:
    body = mpesa_fixture("stk_callback_wrong_amount.json", pushed.provider_reference)
    post_callback(shop, "stk_callback", body)
    payment = payment_of(shop, pushed.pk)
    assert payment.status == PaymentStatus.UNKNOWN
    assert payment.paid_amount == Decimal("1.00")
    assert payment.needs_review
    assert "amount mismatch" in payment.review_reason
    assert order_of(shop, pushed.order_id).status == "pending_payment"
    [event] = events_of(shop, kind="stk_callback")
    assert (event.outcome, event.needs_review) == (Outcome.MISMATCH, True)
    assert "check" in outbound_bodies(shop)[0]


def test_success_without_metadata_is_confirmed_by_query(shop, pushed, daraja, post_callback):
    daraja.wait_for_callbacks()  # the emulated customer has answered: a query can tell
    body = mpesa_fixture("stk_callback_success_missing_metadata.json", pushed.provider_reference)
    post_callback(shop, "stk_callback", body)
    payment = payment_of(shop, pushed.pk)
    assert payment.status == PaymentStatus.PAID
    assert payment.receipt == ""  # the query gives no receipt; the order still knows why
    kinds = [(e.kind, e.outcome) for e in events_of(shop)]
    assert kinds == [("stk_callback", Outcome.APPLIED), ("stk_query", Outcome.APPLIED)]
    assert order_of(shop, pushed.order_id).status == "paid"


def test_malformed_json_is_stored_raw_and_refused(shop, pushed, post_callback) -> None:
    raw = mpesa_fixture("stk_callback_malformed.txt")
    response = post_callback(shop, "stk_callback", raw)
    assert response.status_code == 400
    [event] = events_of(shop)
    assert (event.raw_body, event.outcome, event.needs_review) == (raw, Outcome.INVALID, True)
    assert payment_of(shop, pushed.pk).status == PaymentStatus.PENDING


def test_unknown_checkout_id_is_kept_unmatched(shop, pushed, post_callback) -> None:
    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_success.json", "ws_CO_nope"))
    [event] = events_of(shop)
    assert (event.outcome, event.needs_review) == (Outcome.UNMATCHED, True)
    assert payment_of(shop, pushed.pk).status == PaymentStatus.PENDING


def test_callback_on_a_strangers_url_cannot_touch_this_tenants_payment(
    shop, other_shop, pushed, post_callback
) -> None:
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    post_callback(other_shop, "stk_callback", body)
    assert payment_of(shop, pushed.pk).status == PaymentStatus.PENDING
    assert events_of(shop) == []
    [foreign] = events_of(other_shop)
    assert (foreign.outcome, foreign.needs_review) == (Outcome.UNMATCHED, True)
    assert outbound_bodies(shop) == []


def test_unknown_token_is_404_and_stores_nothing(shop, pushed, client) -> None:
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    response = client.post(
        "/payments/cb/not-a-real-token/stk/", body, content_type="application/json"
    )
    assert response.status_code == 404
    assert events_of(shop) == []


def test_enforced_ip_allowlist_refuses_other_sources(shop, pushed, post_callback) -> None:
    configure_mpesa(shop.id, source_ip_check="enforce")
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    assert post_callback(shop, "stk_callback", body).status_code == 403
    assert events_of(shop) == []
    allowed = post_callback(shop, "stk_callback", body, REMOTE_ADDR="196.201.214.200")
    assert allowed.status_code == 200
    assert payment_of(shop, pushed.pk).status == PaymentStatus.PAID


def test_raw_event_cannot_be_rewritten(shop, pushed, post_callback) -> None:
    from django.db import IntegrityError, transaction

    from tenants.context import tenant_context

    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_cancelled_1032.json", "x"))
    [event] = events_of(shop)
    with (
        pytest.raises(IntegrityError, match="append-only"),
        tenant_context(shop.id),
        transaction.atomic(),
    ):
        PaymentEvent.objects.filter(pk=event.pk).update(raw_body="{}")


def test_callback_endpoint_query_count_is_pinned(
    shop, pushed, client, django_assert_max_num_queries
) -> None:
    """The hot path: token → tenant, account's IP mode, store raw, hand to Celery."""

    from payments.routes import callback_path

    path = callback_path(shop.id, "stk_callback")
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    # 1 route lookup + 5 for the account's IP mode + 5 to store the event (each in its
    # own tenant context: savepoint, set, query, reset, release).
    with django_assert_max_num_queries(11):
        assert client.post(path, body, content_type="application/json").status_code == 200


def test_payment_from_another_number_is_paid_but_flagged(shop, pushed, post_callback) -> None:
    body = mpesa_fixture(
        "stk_callback_success.json", pushed.provider_reference, **{"254712345678": "254733000111"}
    )
    post_callback(shop, "stk_callback", body)
    payment = payment_of(shop, pushed.pk)
    assert (payment.status, payment.needs_review) == (PaymentStatus.PAID, True)
    assert "ending 111" in payment.review_reason
    assert order_of(shop, pushed.order_id).status == "paid"
    # The callback itself waits in the reconciliation queue with the reason.
    [event] = events_of(shop, kind=PaymentEvent.Kind.STK_CALLBACK)
    assert event.needs_review
    assert "ending 111" in event.note


def test_an_order_paid_twice_keeps_the_second_payment_for_a_person(
    shop, pushed, post_callback
) -> None:
    from tulia.commerce.orders import mark_order_paid

    mark_order_paid(shop.id, pushed.order_id, payment_reference="QKX0000001")  # paid at the till
    body = mpesa_fixture("stk_callback_success.json", pushed.provider_reference)
    post_callback(shop, "stk_callback", body)
    payment = payment_of(shop, pushed.pk)
    assert (payment.status, payment.needs_review) == (PaymentStatus.PAID, True)
    [event] = events_of(shop, kind=PaymentEvent.Kind.STK_CALLBACK)
    assert event.needs_review
    assert "already paid by another payment" in event.note
