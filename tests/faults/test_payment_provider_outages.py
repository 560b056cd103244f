"""PesaPal (and a Daraja status query) down, injected on the real emulators: the
customer gets a retryable error, nothing is half-written, and a payment whose status
query failed during the outage is re-queried by the periodic sweeps until it reaches
its true status, with exactly one outcome message."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from payments.emulators.daraja import DarajaEmulator
from payments.emulators.pesapal import PesapalEmulator
from payments.emulators.server import HANG_UP, Fault, Reply
from payments.models import PaymentEvent, PaymentRequest, PaymentStatus
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from payments.tasks import requeue_unprocessed_events, sweep_pending_pesapal, sweep_pending_stk
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.payments.conftest import (
    FIXTURE_TRACKING_ID,
    MakeOrder,
    events_of,
    order_of,
    outbound_bodies,
    payment_of,
    pesapal_fixture,
)
from tools.runner import call_tool
from tulia.celery import app as celery_app

pytestmark = pytest.mark.django_db
OUTAGES: dict[str, Fault] = {
    "hangs_up": HANG_UP,
    "html_503": Reply(503, "<html>Service Unavailable</html>", "text/html"),
    # A 5xx carrying PesaPal's own error shape must not be read as "payment failed".
    "json_500": Reply(500, {"error": {"code": "internal_error", "message": "x"}, "status": "500"}),
}


@pytest.fixture(autouse=True)
def tasks_fail_like_in_production() -> Iterator[None]:
    """Tasks run at enqueue time, and a task that fails keeps its error to itself (as
    a worker would) instead of raising into whoever enqueued it."""
    conf = celery_app.conf
    before = (conf.task_always_eager, conf.task_eager_propagates)
    conf.task_always_eager, conf.task_eager_propagates = True, False
    yield
    conf.task_always_eager, conf.task_eager_propagates = before


@pytest.fixture(params=list(OUTAGES), ids=list(OUTAGES))
def outage(request: pytest.FixtureRequest) -> Fault:
    return OUTAGES[request.param]


def _checkout_payload(shop: Tenant, order_id: int, customer_id: int) -> dict[str, Any]:
    return {
        "tenant_id": str(shop.id),
        "request_id": "req-card-down",
        "customer_id": customer_id,
        "order_id": order_id,
        "confirmed_amount_kes": 1500,
    }


def _payments(shop: Tenant) -> list[PaymentRequest]:
    with tenant_context(shop.id):
        return list(PaymentRequest.objects.order_by("id"))


def test_pesapal_down_checkout_is_a_retryable_error_and_writes_nothing(
    shop: Tenant,
    pesapal: PesapalEmulator,
    make_order: MakeOrder,
    outage: Fault,
) -> None:
    # A first checkout while PesaPal is up leaves a token and a registered IPN behind,
    # so the outage below hits SubmitOrderRequest itself.
    create_checkout(shop.id, make_order(shop, 800).pk, confirmed_amount=Decimal(800))
    order = make_order(shop, 1500)
    pesapal.down(outage)
    result = call_tool(
        "payment_create_pesapal_checkout", _checkout_payload(shop, order.pk, order.customer_id)
    )
    assert result.error is not None
    assert (result.ok, result.error.retryable) == (False, True)
    assert len(_payments(shop)) == 1
    assert order_of(shop, order.pk).status == order.status  # not left "payment pending"
    pesapal.up()
    again = call_tool(
        "payment_create_pesapal_checkout", _checkout_payload(shop, order.pk, order.customer_id)
    )
    assert again.ok
    assert len(_payments(shop)) == 2
    assert len(pesapal.checkouts) == 2


def _ipn(payment: PaymentRequest) -> str:
    return pesapal_fixture("ipn_post.json", **{FIXTURE_TRACKING_ID: payment.provider_reference})


def _age(shop: Tenant, payment: PaymentRequest, seconds: int) -> None:
    with tenant_context(shop.id):
        PaymentRequest.objects.filter(pk=payment.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds)
        )


def test_ipn_during_an_outage_is_requeried_later_and_told_once(
    shop: Tenant,
    pesapal: PesapalEmulator,
    *,
    make_order: MakeOrder,
    post_callback: Any,
    django_capture_on_commit_callbacks: Any,
    outage: Fault,
) -> None:
    payment = create_checkout(shop.id, make_order(shop).pk, confirmed_amount=Decimal(1500))
    pesapal.settle(payment.provider_reference, paid=True, notify=False)
    pesapal.down(outage)
    assert post_callback(shop, "pesapal_ipn", _ipn(payment)).status_code == 200
    assert payment_of(shop, payment.pk).status == PaymentStatus.PENDING
    stored = [(event.kind, event.outcome) for event in events_of(shop)]
    assert stored == [("pesapal_ipn", PaymentEvent.Outcome.RECEIVED)]  # kept for a retry
    assert outbound_bodies(shop) == []
    pesapal.up()
    for _ in range(2):  # the beat keeps sweeping; the second pass finds nothing to do
        with django_capture_on_commit_callbacks(execute=True):
            requeue_unprocessed_events(older_than=0)
    assert payment_of(shop, payment.pk).status == PaymentStatus.PAID
    assert order_of(shop, payment.order_id).status == "paid"
    assert len(outbound_bodies(shop)) == 1


def test_lost_ipn_check_failing_in_an_outage_is_retried_by_the_sweep(
    shop: Tenant,
    pesapal: PesapalEmulator,
    make_order: MakeOrder,
    django_capture_on_commit_callbacks: Any,
    outage: Fault,
) -> None:
    payment = create_checkout(shop.id, make_order(shop).pk, confirmed_amount=Decimal(1500))
    pesapal.settle(payment.provider_reference, paid=False, notify=False)
    _age(shop, payment, 15 * 60)
    pesapal.down(outage)
    assert sweep_pending_pesapal() == 1
    failed_check = payment_of(shop, payment.pk)
    assert (failed_check.status, failed_check.query_count) == (PaymentStatus.PENDING, 0)
    assert events_of(shop) == []  # no status answer was logged, because none came
    pesapal.up()
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_pending_pesapal() == 1  # still due: the failed check left no mark
    assert payment_of(shop, payment.pk).status == PaymentStatus.FAILED
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_pending_pesapal() == 0
    assert len(outbound_bodies(shop)) == 1


def test_stk_query_failing_in_a_daraja_outage_is_retried_by_the_sweep(
    shop: Tenant,
    daraja: DarajaEmulator,
    make_order: MakeOrder,
    django_capture_on_commit_callbacks: Any,
    outage: Fault,
) -> None:
    daraja.script(deliver=False, result_code=0)  # paid, but the callback is lost
    order = make_order(shop, 1500)
    payment = initiate_stk_push(shop.id, order.pk, confirmed_amount=Decimal(1500))
    daraja.wait_for_callbacks()
    _age(shop, payment, 120)
    daraja.down(outage)
    assert sweep_pending_stk() == 1
    failed_query = payment_of(shop, payment.pk)
    assert (failed_query.status, failed_query.query_count) == (PaymentStatus.PENDING, 0)
    assert events_of(shop, kind=PaymentEvent.Kind.STK_QUERY) == []
    daraja.up()
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_pending_stk() == 1
    assert payment_of(shop, payment.pk).status == PaymentStatus.PAID
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_pending_stk() == 0
    assert len(outbound_bodies(shop)) == 1
