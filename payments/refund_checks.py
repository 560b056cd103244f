"""Refunds the provider accepted but whose outcome we have not seen yet.

A PesaPal refund is only accepted by RefundRequest; GetTransactionStatus reading 3
(REVERSED) is what says the money went back, and PesaPal's IPN is the hint to look.
A Daraja Reversal or B2C result may never reach our ResultURL; Daraja's Transaction
Status API finds the transaction by the OriginatorConversationID of our call, and
its verdict comes back on the refund callback URL under a fresh id of ours.

The sweep (payments.sweep_submitted_refunds, every few minutes) asks again after a
quiet while; after the last check the refund is flagged for a person, who looks in
the provider's portal. A refund is failed only on the provider's explicit word, never
for silence: failing it would let staff send the money a second time.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from uuid import UUID, uuid4

import httpx
from django.utils import timezone

from payments.accounts import mpesa_account, pesapal_account
from payments.errors import NotConfigured, ProviderError
from payments.inbox import store_event
from payments.models import (
    PaymentEvent,
    PaymentRequest,
    PaymentStatus,
    Refund,
    RefundMethod,
    RefundStatus,
)
from payments.mpesa.schemas import TxnStatusResult
from payments.refunds import event_done, finish_refund
from tenants.context import operator_context, tenant_context

logger = logging.getLogger("tulia.payments.refunds")
Result = PaymentEvent.Outcome
# Daraja posts a result within seconds; PesaPal decides a card refund within days.
CHECK_AFTER: dict[str, timedelta] = {
    RefundMethod.PESAPAL: timedelta(hours=1),
    RefundMethod.MPESA_REVERSAL: timedelta(minutes=15),
    RefundMethod.MPESA_B2C: timedelta(minutes=15),
}
MAX_CHECKS: dict[str, int] = {
    RefundMethod.PESAPAL: 72,
    RefundMethod.MPESA_REVERSAL: 3,
    RefundMethod.MPESA_B2C: 3,
}
REVERSED = 3  # GetTransactionStatus status_code


def due_for_check(now: datetime | None = None) -> list[tuple[str, int]]:
    """Submitted refunds quiet for longer than their method's wait (all tenants)."""
    moment = now or timezone.now()
    due: list[tuple[str, int]] = []
    with operator_context("payments: find submitted refunds with no outcome"):
        for method, wait in CHECK_AFTER.items():
            rows = (
                Refund.objects.filter(
                    method=method,
                    status=RefundStatus.SUBMITTED,
                    needs_attention=False,
                    submitted_at__lt=moment - wait,
                )
                .exclude(last_checked_at__gt=moment - wait)
                .values_list("tenant_id", "pk")
            )
            due += [(str(tenant_id), pk) for tenant_id, pk in rows]
    return due


def check_refund(tenant_id: UUID | str, refund_id: int, *, http: httpx.Client | None = None) -> str:
    """Ask the provider about one submitted refund; safe to run twice."""
    with tenant_context(tenant_id) as tid:
        refund = Refund.objects.filter(
            tenant_id=tid, pk=refund_id, status=RefundStatus.SUBMITTED, needs_attention=False
        ).first()
        if refund is None or refund.payment_id is None:
            return "nothing to check"
        if refund.checks >= MAX_CHECKS[refund.method]:
            return _attention(tid, refund.pk, f"no outcome after {refund.checks} checks")
    if refund.method == RefundMethod.PESAPAL:
        return _check_card(tid, refund.pk, http)
    return _ask_daraja(tid, refund.pk, http)


# --- PesaPal -------------------------------------------------------------------------
def has_card_refund(payment: PaymentRequest) -> bool:
    """A paid card payment with a refund on its way or done: its IPNs are about that."""
    return (
        payment.status == PaymentStatus.PAID
        and Refund.objects.filter(
            tenant_id=payment.tenant_id,
            payment=payment,
            method=RefundMethod.PESAPAL,
            status__in=(RefundStatus.SUBMITTED, RefundStatus.SUCCEEDED),
        ).exists()
    )


def card_refund_news(payment: PaymentRequest, *, http: httpx.Client | None = None) -> str:
    """An IPN on a refunded card payment: re-query and settle the refunds it shows."""
    status_code = _card_status(payment, http)
    if status_code != REVERSED:
        return Result.STILL_PENDING
    settled = 0
    for refund in Refund.objects.select_for_update().filter(
        tenant_id=payment.tenant_id,
        payment=payment,
        method=RefundMethod.PESAPAL,
        status=RefundStatus.SUBMITTED,
    ):
        finish_refund(refund, RefundStatus.SUCCEEDED, "PesaPal: transaction REVERSED")
        settled += 1
    return Result.APPLIED if settled else Result.DUPLICATE


def _check_card(tid: UUID, refund_id: int, http: httpx.Client | None) -> str:
    with tenant_context(tid):
        refund = Refund.objects.select_for_update().get(pk=refund_id)
        _count_check(refund)
        payment = PaymentRequest.objects.get(tenant_id=tid, pk=refund.payment_id or 0)
        try:
            status_code = _card_status(payment, http)
        except (ProviderError, NotConfigured) as exc:
            logger.warning("refund %s: PesaPal status not read: %s", refund.pk, exc)
            return "unanswered"
        if status_code == REVERSED:
            return finish_refund(refund, RefundStatus.SUCCEEDED, "PesaPal: transaction REVERSED")
    if refund.checks >= MAX_CHECKS[RefundMethod.PESAPAL]:
        return _attention(tid, refund.pk, "PesaPal never showed the refund done")
    return RefundStatus.SUBMITTED


def _card_status(payment: PaymentRequest, http: httpx.Client | None) -> int | None:
    from payments.pesapal.client import PesapalClient

    client = PesapalClient(pesapal_account(payment.tenant_id), http=http)
    status = client.transaction_status(payment.provider_reference)
    store_event(
        payment.tenant_id,
        PaymentEvent.Kind.PESAPAL_STATUS,
        status.model_dump_json(),
        reference=payment.provider_reference,
        note="refund check",
    )
    return status.status_code


# --- Daraja --------------------------------------------------------------------------
def _ask_daraja(tid: UUID, refund_id: int, http: httpx.Client | None) -> str:
    from payments.mpesa.client import DarajaClient
    from payments.routes import callback_url

    with tenant_context(tid):
        refund = Refund.objects.select_for_update().get(pk=refund_id)
        _count_check(refund)
        # Committed before the call: the verdict may come back before we read the
        # acknowledgement, and must find the call it answers.
        refund.check_originator_id, refund.check_conversation_id = f"tulia-rc-{uuid4().hex}", ""
        refund.save(update_fields=["check_originator_id", "check_conversation_id"])
    try:
        accepted = DarajaClient(mpesa_account(tid), http=http).transaction_status(
            "",
            refund.check_originator_id,
            callback_url(tid, "refund_result"),
            callback_url(tid, "refund_timeout"),
            original_id=refund.originator_id,
        )
    except (ProviderError, NotConfigured) as exc:
        logger.warning("refund %s: Transaction Status call refused: %s", refund.pk, exc)
        return "unanswered"
    with tenant_context(tid):
        Refund.objects.filter(tenant_id=tid, pk=refund.pk).update(
            check_conversation_id=accepted.conversation_id[:64]
        )
    _answers_waiting(tid, refund.check_originator_id)
    return RefundStatus.SUBMITTED


def _answers_waiting(tid: UUID, check_id: str) -> None:
    """Verdicts that arrived before we had stored the call's ConversationID."""
    from payments.refunds import handle_refund_result

    with tenant_context(tid):
        waiting = list(
            PaymentEvent.objects.filter(
                tenant_id=tid,
                kind__in=(PaymentEvent.Kind.REFUND_RESULT, PaymentEvent.Kind.REFUND_TIMEOUT),
                reference=check_id,
                outcome=Result.UNMATCHED,
                needs_review=False,
            ).values_list("pk", flat=True)
        )
    for event_id in waiting:
        handle_refund_result(tid, event_id)


def apply_status_answer(tid: UUID, event: PaymentEvent, result: TxnStatusResult) -> str:
    """A Transaction Status verdict about a refund (called with the event locked)."""
    refund = (
        Refund.objects.select_for_update()
        .filter(tenant_id=tid, check_originator_id=result.originator_conversation_id)
        .exclude(check_originator_id="")
        .first()
    )
    if refund is None:
        return event_done(event, Result.UNMATCHED, "no refund of ours has these ids", True)
    if not refund.check_conversation_id:
        return event_done(event, Result.UNMATCHED, "status call not yet acknowledged", False)
    if refund.check_conversation_id != result.conversation_id:
        return event_done(event, Result.UNMATCHED, "ConversationID is not our call's", True)
    if refund.status != RefundStatus.SUBMITTED:
        return event_done(event, Result.DUPLICATE, "refund already settled", False)
    event_done(event, Result.APPLIED, f"refund {refund.pk} status", False)
    return _settle_on_status(tid, refund, event.kind, result)


def _settle_on_status(tid: UUID, refund: Refund, kind: str, result: TxnStatusResult) -> str:
    """Completed: refunded; another status named: failed; no word: ask again or a person."""
    said = str(result.param("TransactionStatus") or "")
    answered = kind == PaymentEvent.Kind.REFUND_RESULT and result.result_code == "0"
    if answered and result.completed:
        refund.provider_reference = result.receipt[:64]
        refund.save(update_fields=["provider_reference"])
        return finish_refund(refund, RefundStatus.SUCCEEDED, "Daraja status: Completed")
    if answered and said:
        return finish_refund(refund, RefundStatus.FAILED, f"Daraja status: {said}"[:255])
    if refund.checks >= MAX_CHECKS[refund.method]:
        return _attention(tid, refund.pk, f"Daraja: {result.result_desc}"[:200])
    return RefundStatus.SUBMITTED


# --- shared --------------------------------------------------------------------------
def _count_check(refund: Refund) -> None:
    refund.checks += 1
    refund.last_checked_at = timezone.now()
    refund.save(update_fields=["checks", "last_checked_at"])


def _attention(tid: UUID, refund_id: int, why: str) -> str:
    with tenant_context(tid):
        Refund.objects.filter(tenant_id=tid, pk=refund_id).update(
            needs_attention=True, result_note=f"needs a person: {why}"[:255]
        )
    logger.warning("refund %s of tenant %s needs a person: %s", refund_id, tid, why)
    return "needs_attention"
