"""The periodic sweeps: silent STK pushes are queried, lost PesaPal IPNs re-checked."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from payments.models import PaymentRequest, PaymentStatus
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from payments.tasks import (
    stale_stk_payments,
    sweep_pending_pesapal,
    sweep_pending_stk,
)
from tenants.context import tenant_context
from tests.payments.conftest import order_of, payment_of
from tulia.celery import app as celery_app

pytestmark = pytest.mark.django_db


def age(tenant, payment: PaymentRequest, seconds: int) -> None:
    with tenant_context(tenant.id):
        PaymentRequest.objects.filter(pk=payment.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds)
        )


def silent_push(tenant, daraja, make_order, **script) -> PaymentRequest:
    daraja.script(deliver=False, **script)
    order = make_order(tenant, 1500)
    return initiate_stk_push(tenant.id, order.pk, confirmed_amount=Decimal(1500))


def test_only_pushes_past_their_tenants_delay_are_due(shop, other_shop, daraja, make_order) -> None:
    young = silent_push(shop, daraja, make_order)
    old = silent_push(shop, daraja, make_order)
    theirs = silent_push(other_shop, daraja, make_order)
    age(shop, young, 45)  # past the 30 s floor, not the tenant's 90 s
    age(shop, old, 120)
    age(other_shop, theirs, 120)
    due = {(tenant_id, pk) for tenant_id, pk, _ in stale_stk_payments()}
    assert due == {(str(shop.id), old.pk), (str(other_shop.id), theirs.pk)}


def test_query_result_wins_and_is_logged(shop, daraja, make_order) -> None:
    payment = silent_push(shop, daraja, make_order, result_code=0)
    daraja.wait_for_callbacks()
    age(shop, payment, 120)
    assert sweep_pending_stk() == 1
    settled = payment_of(shop, payment.pk)
    assert (settled.status, settled.result_code) == (PaymentStatus.PAID, "0")
    assert order_of(shop, payment.order_id).status == "paid"


def test_still_processing_is_left_pending_and_backed_off(shop, daraja, make_order) -> None:
    payment = silent_push(shop, daraja, make_order, answered=False)
    age(shop, payment, 120)
    assert sweep_pending_stk() == 1
    assert payment_of(shop, payment.pk).status == PaymentStatus.PENDING
    assert sweep_pending_stk() == 0  # queried moments ago: Spike Arrest is avoided


def test_lost_pesapal_ipn_is_recovered_by_the_sweep(shop, pesapal, make_order) -> None:
    order = make_order(shop, 2300)
    payment = create_checkout(shop.id, order.pk, confirmed_amount=Decimal(2300))
    pesapal.settle(payment.provider_reference, paid=True, notify=False)
    assert sweep_pending_pesapal() == 0  # too young: the IPN may still come
    age(shop, payment, 15 * 60)
    assert sweep_pending_pesapal() == 1
    assert payment_of(shop, payment.pk).status == PaymentStatus.PAID
    assert sweep_pending_pesapal() == 0


def test_sweeps_are_on_the_beat_schedule() -> None:
    tasks = {entry["task"] for entry in celery_app.conf.beat_schedule.values()}
    assert {"payments.sweep_pending_stk", "payments.sweep_pending_pesapal"} <= tasks


def test_callback_stored_while_the_broker_was_down_is_processed_later(
    shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    """No on-commit capture here: the task is never enqueued, as with a dead broker."""

    from payments.models import PaymentEvent
    from payments.routes import callback_path
    from payments.tasks import requeue_unprocessed_events
    from tests.payments.conftest import events_of, mpesa_fixture

    payment = silent_push(shop, daraja, make_order)
    path = callback_path(shop.id, "stk_callback")
    body = mpesa_fixture("stk_callback_success.json", payment.provider_reference)
    assert client.post(path, body, content_type="application/json").status_code == 200
    [event] = events_of(shop)
    assert event.outcome == PaymentEvent.Outcome.RECEIVED
    assert requeue_unprocessed_events() == 0  # too fresh: its task may still be queued
    with django_capture_on_commit_callbacks(execute=True):  # the broker is back
        assert requeue_unprocessed_events(older_than=0) == 1
    assert payment_of(shop, payment.pk).status == PaymentStatus.PAID
    assert requeue_unprocessed_events(older_than=0) == 0


def test_a_push_daraja_does_not_know_times_out_instead_of_failing_silently(
    shop, daraja, make_order
) -> None:
    """Daraja answers the status query 400.002.02 "Invalid CheckoutRequestID": the
    payment is not left pending for ever; past the give-up time it times out."""
    payment = silent_push(shop, daraja, make_order, answered=False)
    daraja.pushes.clear()  # the emulator no longer knows the CheckoutRequestID
    age(shop, payment, 60 * 60)
    assert sweep_pending_stk() == 1
    assert payment_of(shop, payment.pk).status == PaymentStatus.TIMEOUT
