"""End to end over real HTTP: our httpx clients → emulators → our live callback URLs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from decimal import Decimal

import httpx
import pytest
from django.db import transaction
from django.utils import timezone

from payments.emulators.daraja import StatusScript
from payments.models import PaymentEvent, PaymentRequest, PaymentStatus
from payments.mpesa.c2b import register_c2b_urls
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from payments.routes import callback_path
from payments.tasks import sweep_pending_stk
from tenants.context import tenant_context
from tests.payments.conftest import events_of, order_of, outbound_bodies, payment_of

pytestmark = pytest.mark.django_db(transaction=True)
Outcome = PaymentEvent.Outcome


@pytest.fixture
def live_shop(shop, live_server, settings, daraja):
    settings.PUBLIC_BASE_URL = live_server.url
    daraja.default_status_script = StatusScript()  # verdicts reach the live server
    return shop


def push(tenant, make_order, total: int = 1500) -> PaymentRequest:
    order = make_order(tenant, total)
    return initiate_stk_push(tenant.id, order.pk, confirmed_amount=Decimal(total))


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (0, PaymentStatus.PAID),
        (1032, PaymentStatus.CANCELLED),
        (1037, PaymentStatus.TIMEOUT),
        (1, PaymentStatus.FAILED),
        (2001, PaymentStatus.FAILED),
    ],
)
def test_stk_push_outcome_arrives_by_callback(live_shop, daraja, make_order, code, status):
    daraja.script(result_code=code)
    payment = push(live_shop, make_order)
    daraja.wait_for_callbacks()
    settled = payment_of(live_shop, payment.pk)
    assert settled.status == status
    assert order_of(live_shop, payment.order_id).status == (
        "paid" if code == 0 else "pending_payment"
    )
    assert len(outbound_bodies(live_shop)) == 1
    sent = daraja.pushes[payment.provider_reference].body
    assert (sent["Amount"], sent["PhoneNumber"], sent["PartyA"]) == (
        1500,
        "254712345678",
        "254712345678",
    )


def test_duplicated_delivery_is_one_state_change(live_shop, daraja, make_order) -> None:
    daraja.script(result_code=0, deliveries=3)
    payment = push(live_shop, make_order)
    daraja.wait_for_callbacks()
    outcomes = sorted(e.outcome for e in events_of(live_shop, kind="stk_callback"))
    assert outcomes == sorted([Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE])
    assert payment_of(live_shop, payment.pk).notifications_sent == 1


def test_same_callback_ten_times_concurrently_changes_state_once(
    live_shop, daraja, make_order
) -> None:
    daraja.script(result_code=0, deliver=False)
    payment = push(live_shop, make_order)
    daraja.wait_for_callbacks()
    stk = daraja.pushes[payment.provider_reference]
    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(lambda _: daraja.deliver(stk), range(10)))
    assert statuses == [200] * 10
    outcomes = [e.outcome for e in events_of(live_shop, kind="stk_callback")]
    assert sorted(outcomes) == sorted([Outcome.APPLIED] + [Outcome.DUPLICATE] * 9)
    settled = payment_of(live_shop, payment.pk)
    assert (settled.status, settled.notifications_sent) == (PaymentStatus.PAID, 1)
    assert len(outbound_bodies(live_shop)) == 1


def test_callback_arriving_while_the_push_is_being_recorded(live_shop, daraja, make_order):
    """The tool's transaction is still open when Daraja calls back: matched on commit."""
    daraja.script(result_code=0)
    order = make_order(live_shop, 1500)
    with tenant_context(live_shop.id), transaction.atomic():
        payment = initiate_stk_push(live_shop.id, order.pk, confirmed_amount=Decimal(1500))
        daraja.wait_for_callbacks()
        # Stored and processed by the web process, but our row is not committed yet.
        [early] = events_of(live_shop, kind="stk_callback")
        assert early.outcome == Outcome.UNMATCHED
    [event] = events_of(live_shop, kind="stk_callback")
    assert event.outcome == Outcome.APPLIED
    assert event.needs_review is False
    assert payment_of(live_shop, payment.pk).status == PaymentStatus.PAID


def _age(tenant, payment: PaymentRequest, seconds: int) -> None:
    with tenant_context(tenant.id):
        PaymentRequest.objects.filter(pk=payment.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds)
        )


def test_silent_push_is_queried_and_the_query_result_wins(live_shop, daraja, make_order):
    daraja.script(result_code=1032, deliver=False)  # customer cancels, callback is lost
    payment = push(live_shop, make_order)
    daraja.wait_for_callbacks()
    _age(live_shop, payment, 120)
    assert sweep_pending_stk() == 1
    settled = payment_of(live_shop, payment.pk)
    assert (settled.status, settled.query_count) == (PaymentStatus.CANCELLED, 1)
    assert [e.kind for e in events_of(live_shop)] == ["stk_query"]
    assert sweep_pending_stk() == 0  # settled: never queried again


def test_unanswered_push_times_out_and_a_late_success_is_flagged(
    live_shop, daraja, make_order, client
) -> None:
    daraja.script(answered=False)  # the phone is off: queries say "being processed"
    payment = push(live_shop, make_order)
    _age(live_shop, payment, 100)
    sweep_pending_stk()
    assert payment_of(live_shop, payment.pk).status == PaymentStatus.PENDING
    _age(live_shop, payment, 400)
    with tenant_context(live_shop.id):
        PaymentRequest.objects.filter(pk=payment.pk).update(last_queried_at=None)
    sweep_pending_stk()
    assert payment_of(live_shop, payment.pk).status == PaymentStatus.TIMEOUT
    stk = daraja.pushes[payment.provider_reference]
    stk.receipt = "LATE000001"
    daraja.deliver(stk)  # money moved after we gave up
    late = payment_of(live_shop, payment.pk)
    assert (late.status, late.needs_review) == (PaymentStatus.TIMEOUT, True)
    assert events_of(live_shop, kind="stk_callback")[0].outcome == Outcome.CONFLICT
    assert order_of(live_shop, payment.order_id).status == "pending_payment"


def test_token_is_cached_and_refreshed_once_when_invalidated(live_shop, daraja, make_order):
    daraja.script(deliver=False)
    daraja.script(deliver=False)
    push(live_shop, make_order)
    assert daraja.tokens_issued == 1
    httpx.get(  # someone else fetches a token: ours is now invalid upstream
        f"{daraja.base_url}/oauth/v1/generate",
        params={"grant_type": "client_credentials"},
        auth=("ck-kicks", "cs-kicks-secret"),
    )
    second = push(live_shop, make_order, 800)
    assert second.provider_reference
    assert daraja.tokens_issued == 3


def test_c2b_simulated_payment_flows_through_validation_and_confirmation(
    live_shop, daraja, make_order
) -> None:
    order = make_order(live_shop, 750)
    register_c2b_urls(live_shop.id)
    result = daraja.simulate_c2b("174379", "750.00", order.reference.lower())
    assert result["validated"]["ResultCode"] == "0"
    assert result["confirmed"] == {"ResultCode": 0, "ResultDesc": "Success"}
    daraja.wait_for_callbacks()  # Transaction Status answers on its ResultURL
    assert order_of(live_shop, order.pk).status == "paid"
    kinds = [e.kind for e in events_of(live_shop)]
    assert kinds == ["c2b_validation", "c2b_confirmation", "txn_status_result"]


def test_pesapal_hosted_page_payment_notifies_and_pays(live_shop, pesapal, make_order):
    order = make_order(live_shop, 2300)
    payment = create_checkout(live_shop.id, order.pk, confirmed_amount=Decimal(2300))
    page = httpx.get(payment.redirect_url)
    assert "Pay KES 2300" in page.text
    httpx.post(
        f"{pesapal.base_url}/iframe/PesapalIframe3/Pay",
        data={"OrderTrackingId": payment.provider_reference, "outcome": "paid"},
    )
    assert pesapal.ipn_replies[-1]["status"] == 200
    assert payment_of(live_shop, payment.pk).status == PaymentStatus.PAID
    assert order_of(live_shop, order.pk).status == "paid"


def test_return_page_is_not_proof_of_payment(live_shop, pesapal, make_order) -> None:
    order = make_order(live_shop, 2300)
    payment = create_checkout(live_shop.id, order.pk, confirmed_amount=Decimal(2300))
    path = callback_path(live_shop.id, "pesapal_return")
    httpx.get(f"{live_shop_url(path)}?OrderTrackingId={payment.provider_reference}")
    assert payment_of(live_shop, payment.pk).status == PaymentStatus.PENDING


def live_shop_url(path: str) -> str:
    from django.conf import settings

    return f"{settings.PUBLIC_BASE_URL}{path}"


def test_with_a_real_worker_duplicates_still_change_state_once(
    live_shop, daraja, make_order, real_worker
) -> None:
    """Callbacks go web → Redis broker → Celery worker thread, as in production."""
    from tests.payments.conftest import wait_until

    daraja.script(result_code=0, deliveries=4)
    payment = push(live_shop, make_order)
    daraja.wait_for_callbacks()
    assert wait_until(lambda: payment_of(live_shop, payment.pk).notifications_sent == 1)
    assert wait_until(
        lambda: all(e.outcome != Outcome.RECEIVED for e in events_of(live_shop)),
    )
    outcomes = sorted(e.outcome for e in events_of(live_shop, kind="stk_callback"))
    assert outcomes == sorted([Outcome.APPLIED] + [Outcome.DUPLICATE] * 3)
    assert order_of(live_shop, payment.order_id).status == "paid"
    assert wait_until(lambda: len(outbound_bodies(live_shop)) == 1)
