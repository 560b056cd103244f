"""Celery tasks: ids in, one domain call each, safe to run twice (STYLE 4, 5)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.utils import timezone

from payments.errors import ProviderError
from payments.models import (
    MpesaAccount,
    PaymentEvent,
    PaymentMethod,
    PaymentRequest,
    PaymentStatus,
)
from tenants.context import operator_context
from tulia.celery import app

logger = logging.getLogger("tulia.payments")
# Daraja throttles eager pollers (Spike Arrest): never query one push more often.
QUERY_BACKOFF_SECONDS = 20
MIN_QUERY_AGE_SECONDS = 30
SWEEP_EVERY_SECONDS = 30
UNPROCESSED_AFTER_SECONDS = 120
# A card checkout whose IPN never came is re-checked after this long, for a day.
PESAPAL_CHECK_AFTER = timedelta(minutes=10)
PESAPAL_CHECK_FOR = timedelta(days=1)


@shared_task(name="payments.process_stk_callback")
def process_stk_callback(tenant_id: str, event_id: int) -> str | None:
    from payments.mpesa.handlers import handle_stk_callback

    return handle_stk_callback(tenant_id, event_id)


@shared_task(name="payments.submit_refund")
def submit_refund(tenant_id: str, refund_id: int) -> str | None:
    from payments.refunds import submit_refund as submit

    return submit(tenant_id, refund_id)


@shared_task(name="payments.process_refund_result")
def process_refund_result(tenant_id: str, event_id: int) -> str | None:
    from payments.refunds import handle_refund_result

    return handle_refund_result(tenant_id, event_id)


@shared_task(name="payments.reprocess_stk_callbacks")
def reprocess_stk_callbacks(tenant_id: str, checkout_request_id: str) -> int:
    from payments.mpesa.handlers import handle_stk_callback, stk_callbacks_waiting_for

    waiting = stk_callbacks_waiting_for(tenant_id, checkout_request_id)
    for event_id in waiting:
        handle_stk_callback(tenant_id, event_id)
    return len(waiting)


@shared_task(name="payments.process_c2b_confirmation")
def process_c2b_confirmation(tenant_id: str, event_id: int) -> str | None:
    from payments.mpesa.handlers import handle_c2b_confirmation

    return handle_c2b_confirmation(tenant_id, event_id)


@shared_task(name="payments.verify_stk_payment", autoretry_for=(ProviderError,), max_retries=3)
def verify_stk_payment(tenant_id: str, payment_id: int, attempt: int) -> str | None:
    """One STK query confirming a success claim; asks again later while Daraja hesitates."""
    from payments.mpesa.stk import verify_delay, verify_stk_claim

    result = verify_stk_claim(tenant_id, payment_id, attempt)
    if result == PaymentEvent.Outcome.STILL_PENDING:
        verify_stk_payment.apply_async(
            (tenant_id, payment_id, attempt + 1), countdown=verify_delay(attempt)
        )
    return result


@shared_task(name="payments.request_c2b_status", autoretry_for=(ProviderError,), max_retries=3)
def request_c2b_status(tenant_id: str, payment_id: int) -> str | None:
    from payments.mpesa.status import request_status

    return request_status(tenant_id, payment_id)


@shared_task(name="payments.process_status_result")
def process_status_result(tenant_id: str, event_id: int) -> str | None:
    from payments.mpesa.status import handle_status_result

    return handle_status_result(tenant_id, event_id)


@shared_task(name="payments.reprocess_status_results")
def reprocess_status_results(tenant_id: str, originator_id: str) -> int:
    from payments.mpesa.status import handle_status_result, results_waiting_for

    waiting = results_waiting_for(tenant_id, originator_id)
    for event_id in waiting:
        handle_status_result(tenant_id, event_id)
    return len(waiting)


@shared_task(
    name="payments.process_pesapal_ipn",
    autoretry_for=(ProviderError,),
    retry_backoff=True,
    max_retries=5,
)
def process_pesapal_ipn(tenant_id: str, event_id: int) -> str | None:
    from payments.pesapal.handlers import handle_ipn

    return handle_ipn(tenant_id, event_id)


@shared_task(name="payments.query_stk_payment", autoretry_for=(ProviderError,), max_retries=2)
def query_stk_payment(tenant_id: str, payment_id: int, give_up_after: int | None) -> str | None:
    from payments.mpesa.stk import query_stk_payment as query

    return query(tenant_id, payment_id, give_up_after=give_up_after)


@shared_task(name="payments.sweep_pending_stk")
def sweep_pending_stk() -> int:
    """Periodic: query STK pushes that got no callback within the tenant's limit."""
    requeue_unprocessed_events()
    due = stale_stk_payments()
    for tenant_id, payment_id, give_up_after in due:
        query_stk_payment.delay(tenant_id, payment_id, give_up_after)
    stuck = stuck_stk_verifications()
    for tenant_id, payment_id in stuck:
        # The chain of checks was lost (worker died): one last check decides.
        verify_stk_payment.delay(tenant_id, payment_id, VERIFY_LAST_ATTEMPT)
    unanswered = unanswered_c2b_verifications()
    for tenant_id, payment_id in unanswered:
        request_c2b_status.delay(tenant_id, payment_id)  # gives up after a few calls
    return len(due) + len(stuck) + len(unanswered)


VERIFY_LAST_ATTEMPT = 10_000  # past any tenant's number of checks: answer or give up
VERIFY_STUCK_AFTER = timedelta(minutes=10)


def unanswered_c2b_verifications() -> list[tuple[str, int]]:
    """Held C2B payments of shops with an initiator whose last status call went unanswered
    (lost call, lost verdict) for a while. Shops without one wait for staff instead."""
    cutoff = timezone.now() - VERIFY_STUCK_AFTER
    with operator_context("payments: find C2B confirmations with no status verdict"):
        asking = MpesaAccount.objects.exclude(initiator_name="").values_list("tenant_id")
        rows = PaymentRequest.objects.filter(
            method=PaymentMethod.MPESA_C2B,
            status=PaymentStatus.PENDING_VERIFICATION,
            tenant_id__in=asking,
            updated_at__lt=cutoff,
        ).exclude(last_queried_at__gt=cutoff)
        return [(str(t), pk) for t, pk in rows.values_list("tenant_id", "pk")[:500]]


def stuck_stk_verifications() -> list[tuple[str, int]]:
    """Success claims whose checks stopped long ago without a verdict."""
    cutoff = timezone.now() - VERIFY_STUCK_AFTER
    with operator_context("payments: find STK success claims never verified"):
        rows = PaymentRequest.objects.filter(
            method=PaymentMethod.MPESA_STK,
            status=PaymentStatus.PENDING_VERIFICATION,
            updated_at__lt=cutoff,
        ).values_list("tenant_id", "pk")[:500]
        return [(str(tenant_id), pk) for tenant_id, pk in rows]


def requeue_unprocessed_events(older_than: int = UNPROCESSED_AFTER_SECONDS) -> int:
    """Stored callbacks whose task never ran (broker down at the time) are enqueued again."""
    tasks: dict[str, Any] = {
        PaymentEvent.Kind.STK_CALLBACK: process_stk_callback,
        PaymentEvent.Kind.C2B_CONFIRMATION: process_c2b_confirmation,
        PaymentEvent.Kind.PESAPAL_IPN: process_pesapal_ipn,
        PaymentEvent.Kind.TXN_STATUS_RESULT: process_status_result,
        PaymentEvent.Kind.TXN_STATUS_TIMEOUT: process_status_result,
    }
    cutoff = timezone.now() - timedelta(seconds=older_than)
    with operator_context("payments: find stored callbacks never processed"):
        rows = list(
            PaymentEvent.objects.filter(
                outcome=PaymentEvent.Outcome.RECEIVED, kind__in=tasks, received_at__lt=cutoff
            ).values_list("tenant_id", "pk", "kind")[:500]
        )
    for tenant_id, event_id, kind in rows:
        tasks[kind].delay(str(tenant_id), event_id)
    return len(rows)


def stale_stk_payments() -> list[tuple[str, int, int]]:
    """(tenant, payment, give-up seconds) for pushes past their tenant's query delay."""
    now = timezone.now()
    with operator_context("payments: find STK pushes with no callback"):
        accounts = {a.tenant_id: a for a in MpesaAccount.objects.all()}
        candidates = PaymentRequest.objects.filter(
            method=PaymentMethod.MPESA_STK,
            status=PaymentStatus.PENDING,
            created_at__lt=now - timedelta(seconds=MIN_QUERY_AGE_SECONDS),
        ).exclude(provider_reference="")
        rows = list(candidates.values_list("tenant_id", "pk", "created_at", "last_queried_at"))
    due = []
    for tenant_id, payment_id, created_at, queried_at in rows:
        account = accounts.get(tenant_id)
        if account is None or now - created_at < timedelta(seconds=account.stk_query_after_seconds):
            continue
        if queried_at and now - queried_at < timedelta(seconds=QUERY_BACKOFF_SECONDS):
            continue
        due.append((str(tenant_id), payment_id, account.stk_give_up_after_seconds))
    return due


@shared_task(name="payments.notify_payment_outcome")
def notify_payment_outcome(tenant_id: str, payment_id: int) -> bool:
    from payments.notify import send_outcome_once

    return send_outcome_once(tenant_id, payment_id)


@shared_task(name="payments.check_pesapal_payment", autoretry_for=(ProviderError,), max_retries=2)
def check_pesapal_payment(tenant_id: str, payment_id: int) -> str | None:
    from payments.pesapal.handlers import check_pending

    return check_pending(tenant_id, payment_id)


@shared_task(name="payments.sweep_pending_pesapal")
def sweep_pending_pesapal() -> int:
    """Periodic: a lost IPN must not leave a paid card checkout pending forever."""
    now = timezone.now()
    with operator_context("payments: find card checkouts with no IPN"):
        due = list(
            PaymentRequest.objects.filter(
                method=PaymentMethod.PESAPAL_CARD,
                status=PaymentStatus.PENDING,
                created_at__lt=now - PESAPAL_CHECK_AFTER,
                created_at__gt=now - PESAPAL_CHECK_FOR,
            )
            .exclude(last_queried_at__gt=now - PESAPAL_CHECK_AFTER)
            .values_list("tenant_id", "pk")
        )
    for tenant_id, payment_id in due:
        check_pesapal_payment.delay(str(tenant_id), payment_id)
    return len(due)


@shared_task(name="payments.check_refund")
def check_refund(tenant_id: str, refund_id: int) -> str:
    from payments.refund_checks import check_refund as check

    return check(tenant_id, refund_id)


@shared_task(name="payments.sweep_submitted_refunds")
def sweep_submitted_refunds() -> int:
    """Periodic: a refund the provider accepted must not stay "submitted" forever."""
    from payments.refund_checks import due_for_check

    due = due_for_check()
    for tenant_id, refund_id in due:
        check_refund.delay(tenant_id, refund_id)
    return len(due)


app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "payments-sweep-stk": {"task": "payments.sweep_pending_stk", "schedule": SWEEP_EVERY_SECONDS},
    "payments-sweep-pesapal": {
        "task": "payments.sweep_pending_pesapal",
        "schedule": SWEEP_EVERY_SECONDS * 10,
    },
    "payments-sweep-refunds": {
        "task": "payments.sweep_submitted_refunds",
        "schedule": SWEEP_EVERY_SECONDS * 10,
    },
}
