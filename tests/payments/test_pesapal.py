"""PesaPal: checkout through the real client, IPN → GetTransactionStatus → settle."""

from __future__ import annotations

from decimal import Decimal

import pytest

from payments.errors import PaymentError
from payments.models import PaymentEvent, PaymentRequest, PaymentStatus
from payments.pesapal.checkout import create_checkout
from tests.payments.conftest import (
    FIXTURE_TRACKING_ID,
    events_of,
    order_of,
    outbound_bodies,
    payment_of,
    pesapal_fixture,
)

pytestmark = pytest.mark.django_db
Outcome = PaymentEvent.Outcome


@pytest.fixture
def checkout(shop, make_order) -> PaymentRequest:
    order = make_order(shop, 1500)
    return create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1500))


def ipn_for(payment: PaymentRequest, name: str = "ipn_post.json") -> str:
    return pesapal_fixture(
        name, **{FIXTURE_TRACKING_ID: payment.provider_reference, "KIC-7H2Q-1": "x"}
    )


def test_checkout_registers_the_ipn_once_and_returns_the_hosted_page(
    shop, pesapal, make_order
) -> None:
    first = create_checkout(shop.id, make_order(shop, 1500).pk, confirmed_amount=Decimal(1500))
    create_checkout(shop.id, make_order(shop, 800).pk, confirmed_amount=Decimal(800))
    assert len(pesapal.ipns) == 1
    [ipn] = pesapal.ipns.values()
    assert "/card/ipn/" in ipn["url"]
    assert first.redirect_url.startswith(pesapal.base_url)
    submitted = pesapal.checkouts[first.provider_reference].body
    assert (submitted["amount"], submitted["currency"]) == (1500.0, "KES")
    assert submitted["id"] == first.account_reference


def test_same_attempt_twice_is_one_checkout(shop, pesapal, make_order) -> None:
    order = make_order(shop, 1500)
    one = create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1500))
    two = create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1500))
    assert one.pk == two.pk
    assert len(pesapal.checkouts) == 1


def test_unconfirmed_amount_is_refused(shop, pesapal, make_order) -> None:
    order = make_order(shop, 1500)
    with pytest.raises(PaymentError, match="amount_not_confirmed"):
        create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1400))
    assert pesapal.checkouts == {}


def test_ipn_for_a_completed_payment_pays_the_order(shop, pesapal, checkout, post_callback):
    pesapal.settle(checkout.provider_reference, paid=True, notify=False)
    response = post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    assert response.json() == {
        "orderNotificationType": "IPNCHANGE",
        "orderTrackingId": checkout.provider_reference,
        "orderMerchantReference": "x",
        "status": 200,
    }
    payment = payment_of(shop, checkout.pk)
    assert payment.status == PaymentStatus.PAID
    assert payment.receipt == pesapal.checkouts[checkout.provider_reference].confirmation_code
    assert order_of(shop, checkout.order_id).status == "paid"
    kinds = [(e.kind, e.outcome) for e in events_of(shop)]
    assert kinds == [("pesapal_ipn", Outcome.APPLIED), ("pesapal_status", Outcome.APPLIED)]
    assert len(outbound_bodies(shop)) == 1


def test_ipn_alone_proves_nothing_while_status_is_pending(shop, checkout, post_callback):
    post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    assert payment_of(shop, checkout.pk).status == PaymentStatus.PENDING
    assert order_of(shop, checkout.order_id).status == "pending_payment"
    assert outbound_bodies(shop) == []


@pytest.mark.parametrize("name", ["ipn_post.json", "ipn_post_camelcase.json"])
def test_failed_card_is_failed_with_retry_advice(shop, pesapal, checkout, post_callback, name):
    pesapal.settle(checkout.provider_reference, paid=False, notify=False)
    post_callback(shop, "pesapal_ipn", ipn_for(checkout, name))
    assert payment_of(shop, checkout.pk).status == PaymentStatus.FAILED
    assert "card declined" in outbound_bodies(shop)[0]


def test_get_style_ipn_is_acknowledged_and_processed(shop, pesapal, checkout, client) -> None:

    from payments.routes import callback_path

    pesapal.settle(checkout.provider_reference, paid=True, notify=False)
    path = callback_path(shop.id, "pesapal_ipn")
    query = ipn_for(checkout, "ipn_get.txt")
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.get(f"{path}?{query}")
    assert response.json()["status"] == 200
    assert payment_of(shop, checkout.pk).status == PaymentStatus.PAID


def test_duplicate_ipns_change_state_once(shop, pesapal, checkout, post_callback) -> None:
    pesapal.settle(checkout.provider_reference, paid=True, notify=False)
    for _ in range(4):
        post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    statuses = [e.outcome for e in events_of(shop, kind="pesapal_status")]
    assert statuses == [Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE, Outcome.DUPLICATE]
    assert len(outbound_bodies(shop)) == 1


def test_wrong_amount_is_not_paid(shop, pesapal, checkout, post_callback) -> None:
    pesapal.settle(checkout.provider_reference, paid=True, amount=15.0, notify=False)
    post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    payment = payment_of(shop, checkout.pk)
    assert (payment.status, payment.needs_review) == (PaymentStatus.UNKNOWN, True)
    assert order_of(shop, checkout.order_id).status == "pending_payment"


def test_reversal_after_payment_is_a_flagged_conflict(shop, pesapal, checkout, post_callback):
    pesapal.settle(checkout.provider_reference, paid=True, notify=False)
    post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    pesapal.checkouts[checkout.provider_reference].status_code = 3
    post_callback(shop, "pesapal_ipn", ipn_for(checkout))
    payment = payment_of(shop, checkout.pk)
    assert (payment.status, payment.needs_review) == (PaymentStatus.PAID, True)
    assert events_of(shop, kind="pesapal_status")[-1].outcome == Outcome.CONFLICT


def test_malformed_ipn_asks_pesapal_to_retry(shop, checkout, post_callback) -> None:
    response = post_callback(shop, "pesapal_ipn", pesapal_fixture("ipn_malformed.txt"))
    assert response.json()["status"] == 500
    [event] = events_of(shop)
    assert (event.outcome, event.needs_review) == (Outcome.INVALID, True)


def test_strangers_ipn_url_cannot_touch_this_checkout(
    shop, other_shop, pesapal, checkout, post_callback
) -> None:
    pesapal.settle(checkout.provider_reference, paid=True, notify=False)
    post_callback(other_shop, "pesapal_ipn", ipn_for(checkout))
    assert payment_of(shop, checkout.pk).status == PaymentStatus.PENDING
    [foreign] = events_of(other_shop)
    assert (foreign.outcome, foreign.needs_review) == (Outcome.UNMATCHED, True)
