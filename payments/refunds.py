"""Refunds by the method the order was paid with; never more than paid, never twice.

    request_refund ──> manual: recorded as sent by staff (succeeded at once)
                   └─> requested ──(after commit, Celery)──> submit_refund
                          card:   PesaPal RefundRequest ──> submitted
                                    ──(IPN, or the sweep: GetTransactionStatus
                                       reads REVERSED)──> succeeded
                          M-Pesa: Daraja Reversal or B2C ──> submitted
                                    ──(Result on our ResultURL, or the sweep's
                                       Transaction Status call)──> succeeded | failed
                          no outcome after the last check ──> needs_attention (a person)

`request_refund` locks the order row, so two staff clicks serialise: the second finds
the first's refund under the same idempotency key (one per return request or
cancellation), and the sum of refunds that did not fail can never pass what was paid.
A failed refund may be asked again under its key; it is the same row, retried.
M-Pesa refunds go through Daraja only where the shop configured an initiator and
chose Reversal or B2C (MpesaAccount.refund_method); otherwise a person refunds and
records it. Daraja's Result counts only when both its OriginatorConversationID (ours,
random) and ConversationID (Daraja's answer to our call) match a refund we submitted.
The customer is told each outcome through the outbound gate.
"""

from __future__ import annotations

import json
import logging
from decimal import Decimal
from uuid import UUID, uuid4

from django.db import transaction
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from payments.accounts import mpesa_account, pesapal_account
from payments.errors import NotConfigured, ProviderError
from payments.inbox import enqueue_after_commit, store_event
from payments.models import (
    MpesaAccount,
    PaymentEvent,
    PaymentMethod,
    PaymentRequest,
    PaymentStatus,
    PesapalAccount,
    Refund,
    RefundMethod,
    RefundStatus,
)
from payments.mpesa.schemas import TxnStatusEnvelope, TxnStatusResult
from tenants.context import tenant_context
from tulia.commerce.models import Order
from tulia.commerce.orders import locked_order
from tulia.errors import DomainError

logger = logging.getLogger("tulia.payments.refunds")
Result = PaymentEvent.Outcome
MPESA_METHODS = (PaymentMethod.MPESA_STK, PaymentMethod.MPESA_C2B)


class RefundRefused(DomainError):
    """Facts: `reason` (not_paid, too_much, nothing_left)."""

    code = "refund_refused"


def paid_payment(order: Order) -> PaymentRequest | None:
    return (
        PaymentRequest.objects.filter(
            tenant_id=order.tenant_id, order=order, status=PaymentStatus.PAID
        )
        .order_by("-completed_at", "-pk")
        .first()
    )


def received(payment: PaymentRequest) -> Decimal:
    """What the provider says arrived, else what was asked."""
    return payment.paid_amount if payment.paid_amount is not None else payment.amount


def paid_amount(order: Order, payment: PaymentRequest | None) -> Decimal:
    """What the customer paid: the provider's amount, else the order's if staff marked it."""
    if payment is not None:
        return received(payment)
    return order.total if order.paid_at is not None else Decimal(0)


def refunded(order: Order) -> Decimal:
    """Refunds of the order that have not failed (sent, on their way, or just asked)."""
    return not_failed_total(Refund.objects.filter(tenant_id=order.tenant_id, order=order))


def not_failed_total(refunds: QuerySet[Refund]) -> Decimal:
    """The sum of these refunds that have not failed (sent, on their way, or just asked)."""
    rows = refunds.exclude(status=RefundStatus.FAILED)
    total: Decimal | None = rows.aggregate(total=Sum("amount"))["total"]
    return total or Decimal(0)


def request_refund(
    tenant_id: UUID | str,
    order_id: int,
    amount: Decimal | None,
    *,
    key: str,
    actor: str,
    reason: str = "",
    withhold: Decimal = Decimal(0),
) -> Refund:
    """Refund `amount` of the order, once per `key`; when None, all that is left but
    `withhold` (the delivery fee a shop keeps on a whole-order return)."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        order = locked_order(tid, order_id)
        existing = Refund.objects.filter(tenant_id=tid, idempotency_key=key[:80]).first()
        if existing is not None and existing.status != RefundStatus.FAILED:
            return existing
        payment = paid_payment(order)
        left = paid_amount(order, payment) - refunded(order)
        wanted = left - withhold if amount is None else amount
        if paid_amount(order, payment) <= 0:
            raise RefundRefused(f"order {order.reference} was not paid", reason="not_paid")
        if wanted <= 0 or wanted > left:
            reason_code = "nothing_left" if left <= 0 or amount is None else "too_much"
            raise RefundRefused(
                f"order {order.reference}: {wanted} asked, {left} refundable", reason=reason_code
            )
        refund = existing or Refund(tenant_id=tid, order=order, idempotency_key=key[:80])
        refund.payment, refund.amount, refund.actor = payment, wanted, actor[:80]
        refund.method, refund.reason = refund_method(tid, payment), reason[:200]
        refund.status, refund.result_note = RefundStatus.REQUESTED, ""
        refund.save()
        if refund.method == RefundMethod.MANUAL:
            finish_refund(refund, RefundStatus.SUCCEEDED, f"recorded by {actor}"[:255])
        else:
            from payments import tasks

            enqueue_after_commit(tasks.submit_refund, str(tid), refund.pk)
        return refund


def refund_method(tenant_id: UUID, payment: PaymentRequest | None) -> str:
    """How money paid by `payment` goes back: through the provider where the shop set
    that up, else by a person who records it."""
    if payment is None or not payment.receipt:
        return RefundMethod.MANUAL
    try:
        if payment.method == PaymentMethod.PESAPAL_CARD:
            pesapal_account(tenant_id)
            return RefundMethod.PESAPAL
        if payment.method in MPESA_METHODS:
            return _mpesa_method(mpesa_account(tenant_id), payment)
    except NotConfigured:
        pass
    return RefundMethod.MANUAL


def _mpesa_method(account: MpesaAccount, payment: PaymentRequest) -> str:
    if not account.initiator_name or not account.security_credential:
        return RefundMethod.MANUAL
    if account.refund_method == "reversal":
        return RefundMethod.MPESA_REVERSAL
    if account.refund_method == "b2c" and account.b2c_shortcode and payment.phone_e164:
        return RefundMethod.MPESA_B2C
    return RefundMethod.MANUAL


def submit_refund(tenant_id: UUID | str, refund_id: int) -> str | None:
    """Ask the provider (Celery, after the refund row committed); safe to run twice."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        refund = (
            Refund.objects.select_for_update()
            .filter(tenant_id=tid, pk=refund_id, status=RefundStatus.REQUESTED)
            .first()
        )
        if refund is None or refund.payment is None:
            return None
        try:
            if refund.method == RefundMethod.PESAPAL:
                return _pesapal(refund, refund.payment)
            return _daraja(refund, refund.payment)
        except (ProviderError, NotConfigured) as exc:
            return finish_refund(refund, RefundStatus.FAILED, f"provider refused: {exc}"[:255])


def _pesapal(refund: Refund, payment: PaymentRequest) -> str:
    from payments.pesapal.client import PesapalClient

    account: PesapalAccount = pesapal_account(refund.tenant_id)
    answer = PesapalClient(account).refund_request(
        payment.receipt, refund.amount, refund.actor or "tulia", refund.reason
    )
    # Accepted is not refunded: PesaPal may still turn it down. The transaction's
    # status reads REVERSED once the money went back (payments/refund_checks.py).
    refund.status, refund.submitted_at = RefundStatus.SUBMITTED, timezone.now()
    refund.result_note = f"PesaPal: {answer.message or 'refund request accepted'}"[:255]
    refund.save(update_fields=["status", "submitted_at", "result_note"])
    return RefundStatus.SUBMITTED


def _daraja(refund: Refund, payment: PaymentRequest) -> str:
    from payments.mpesa.client import AsyncRefund, DarajaClient
    from payments.routes import callback_url

    refund.originator_id = f"tulia-refund-{uuid4().hex}"
    call = AsyncRefund(
        amount=refund.amount,
        originator_id=refund.originator_id,
        result_url=callback_url(refund.tenant_id, "refund_result"),
        timeout_url=callback_url(refund.tenant_id, "refund_timeout"),
        remarks=refund.reason or f"Refund {refund_subject(refund)}",
    )
    client = DarajaClient(mpesa_account(refund.tenant_id))
    if refund.method == RefundMethod.MPESA_REVERSAL:
        accepted = client.reversal(call, payment.receipt)
    else:
        accepted = client.b2c(call, payment.phone_e164)
    refund.conversation_id = accepted.conversation_id[:64]
    refund.status, refund.submitted_at = RefundStatus.SUBMITTED, timezone.now()
    refund.save(update_fields=["originator_id", "conversation_id", "status", "submitted_at"])
    return RefundStatus.SUBMITTED


def handle_refund_result(tenant_id: UUID | str, event_id: int) -> str | None:
    """Apply Daraja's Reversal/B2C result (or queue timeout) to the refund it answers."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        event = (
            PaymentEvent.objects.select_for_update()
            .filter(
                tenant_id=tid,
                pk=event_id,
                kind__in=(PaymentEvent.Kind.REFUND_RESULT, PaymentEvent.Kind.REFUND_TIMEOUT),
            )
            .filter(Q(outcome=Result.RECEIVED) | Q(outcome=Result.UNMATCHED, needs_review=False))
            .first()
        )
        if event is None:
            return None
        result = TxnStatusEnvelope.model_validate_json(event.raw_body).result
        refund = (
            Refund.objects.select_for_update()
            .filter(tenant_id=tid, originator_id=result.originator_conversation_id)
            .exclude(originator_id="")
            .first()
        )
        if refund is None:  # perhaps the answer to the sweep's Transaction Status call
            from payments.refund_checks import apply_status_answer

            return apply_status_answer(tid, event, result)
        if refund.conversation_id != result.conversation_id:
            return event_done(event, Result.UNMATCHED, "no refund of ours has these ids", True)
        if refund.status != RefundStatus.SUBMITTED:
            return event_done(event, Result.DUPLICATE, "refund already settled", False)
        event_done(event, Result.APPLIED, f"refund {refund.pk}", False)
        return _settle(refund, event.kind, result)


def _settle(refund: Refund, kind: str, result: TxnStatusResult) -> str:
    if kind == PaymentEvent.Kind.REFUND_TIMEOUT or result.result_code != "0":
        note = f"Daraja {result.result_code}: {result.result_desc}"[:255]
        return finish_refund(refund, RefundStatus.FAILED, note)
    refund.provider_reference = result.transaction_id[:64]
    refund.save(update_fields=["provider_reference"])
    return finish_refund(refund, RefundStatus.SUCCEEDED, f"Daraja: {result.result_desc}"[:255])


def event_done(event: PaymentEvent, outcome: str, note: str, review: bool) -> str:
    event.outcome, event.note, event.needs_review = outcome, note[:255], review
    event.processed_at = timezone.now()
    event.save(update_fields=["outcome", "note", "needs_review", "processed_at"])
    if review:
        logger.warning("refund result %s for tenant %s: %s", event.pk, event.tenant_id, note)
    return outcome


def refund_subject(refund: Refund) -> str:
    """What the refund is for, in words: the order, or the receipt of money with none."""
    if refund.order is not None:
        return refund.order.reference
    return refund.payment.receipt if refund.payment is not None else str(refund.pk)


def finish_refund(refund: Refund, status: str, note: str) -> str:
    """Record the outcome, settle the order's refund_due, and tell the customer."""
    refund.status, refund.result_note = status, note
    refund.completed_at = timezone.now()
    refund.save(update_fields=["status", "result_note", "completed_at"])
    if refund.order_id is None:  # money that arrived for no order (payments.reconcile)
        if status == RefundStatus.FAILED:
            _back_to_the_queue(refund, note)
        return status
    order = Order.objects.select_for_update().get(pk=refund.order_id)
    if status == RefundStatus.SUCCEEDED and order.refund_due:
        left = paid_amount(order, paid_payment(order)) - refunded(order)
        if left <= 0:
            Order.objects.filter(pk=order.pk).update(refund_due=False)
    from payments.refund_notices import tell_customer

    tell_customer(refund, order)
    return status


def _back_to_the_queue(refund: Refund, note: str) -> None:
    """A refund of money with no order failed: the money is the owner's to decide on
    again, so it goes back to the reconciliation queue with the provider's word."""
    payment = refund.payment
    if payment is None:
        return
    record = {"decision": "refund_failed", "refund": refund.pk, "why": note}
    event = store_event(
        refund.tenant_id,
        PaymentEvent.Kind.STAFF_CONFIRMATION,
        json.dumps(record),
        reference=payment.receipt,
        note=f"refund of {refund.amount} failed: {note}",
    )
    waiting = PaymentEvent.objects.filter(
        tenant_id=refund.tenant_id, payment=payment, needs_review=True, reviewed_at=None
    ).exists()
    event.payment, event.needs_review = payment, not waiting
    event.save(update_fields=["payment", "needs_review"])
    PaymentRequest.objects.filter(pk=payment.pk).update(reviewed_at=None)
