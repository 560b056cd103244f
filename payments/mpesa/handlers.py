"""Processing of stored Daraja events (run by Celery, safe to run any number of times).

A success callback is a claim, not a result: anyone holding the URL can post one. An
STK success is held until STK Push Query confirms it (payments.mpesa.stk), a C2B
confirmation until Transaction Status does (payments.mpesa.status) or, for a shop
without an API initiator, until staff confirm it from the M-Pesa statement in admin.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from payments.accounts import mpesa_account
from payments.ledger import Evidence, confirming_notice_after_commit, hold_for_verification, settle
from payments.models import (
    OPEN_STATUSES,
    PaymentEvent,
    PaymentMethod,
    PaymentRequest,
    PaymentStatus,
)
from payments.mpesa.schemas import C2BTransaction, StkCallback, StkCallbackEnvelope
from payments.outcomes import PAID, stk_outcome
from tenants.context import tenant_context

logger = logging.getLogger("tulia.payments.mpesa")
Result = PaymentEvent.Outcome
# Events a (re)run may still process: fresh ones, and callbacks that arrived too early.
_CLAIMABLE = (Result.RECEIVED, Result.UNMATCHED)


def _claim(tenant_id: UUID, event_id: int, kind: str) -> PaymentEvent | None:
    """Lock the event; None when it was already processed (a redelivered task)."""
    event = (
        PaymentEvent.objects.select_for_update()
        .filter(tenant_id=tenant_id, pk=event_id, kind=kind)
        .first()
    )
    return event if event is not None and event.outcome in _CLAIMABLE else None


def _mark(event: PaymentEvent, outcome: str, *, needs_review: bool, note: str) -> str:
    event.outcome = outcome
    event.needs_review = needs_review
    event.note = note[:255]
    event.processed_at = timezone.now()
    event.save(update_fields=["payment", "outcome", "needs_review", "note", "processed_at"])
    return outcome


def handle_stk_callback(tenant_id: UUID | str, event_id: int) -> str | None:
    with tenant_context(tenant_id) as tid:
        event = _claim(tid, event_id, PaymentEvent.Kind.STK_CALLBACK)
        if event is None:
            return None
        callback = StkCallbackEnvelope.model_validate_json(event.raw_body).callback
        payment = _locked_by_reference(tid, PaymentMethod.MPESA_STK, callback.checkout_request_id)
        if payment is None:
            # Possibly the push is still being recorded: reprocess_stk_callbacks retries
            # once it is; otherwise it stays in the reconciliation queue.
            note = "no STK push with this CheckoutRequestID"
            return _mark(event, Result.UNMATCHED, needs_review=True, note=note)
        evidence = stk_claim_evidence(callback)
        if callback.result_code == 0 and payment.status in OPEN_STATUSES:
            return _verify_stk_claim(payment, event)
        # A failure ends the attempt as Daraja says (it marks nothing paid); a success
        # on a decided payment is compared with the record: duplicate or conflict.
        outcome = stk_outcome(callback.result_code)
        return settle(payment, event, outcome, evidence)


def stk_claim_evidence(callback: StkCallback) -> Evidence:
    """What an STK callback claims (once the query confirms it, the receipt and amount)."""
    return Evidence(
        result_code=str(callback.result_code),
        result_desc=callback.result_desc,
        receipt=callback.receipt,
        amount=callback.amount if callback.result_code == 0 else None,
        phone=callback.phone,
    )


def _verify_stk_claim(payment: PaymentRequest, event: PaymentEvent) -> str:
    """Hold the payment and start asking Daraja (STK Push Query) whether it was paid."""
    from payments.tasks import verify_stk_payment

    first_claim = payment.status == PaymentStatus.PENDING
    result = hold_for_verification(payment, event, "success claimed: confirming by STK query")
    if first_claim:  # a repeated claim joins the checks already running
        tenant_id, payment_id = str(payment.tenant_id), payment.pk
        transaction.on_commit(lambda: verify_stk_payment.delay(tenant_id, payment_id, 1))
        confirming_notice_after_commit(payment)
    return result


def stk_callbacks_waiting_for(tenant_id: UUID | str, checkout_request_id: str) -> list[int]:
    """Callbacks that arrived before their push was recorded."""
    with tenant_context(tenant_id) as tid:
        return list(
            PaymentEvent.objects.filter(
                tenant_id=tid,
                kind=PaymentEvent.Kind.STK_CALLBACK,
                reference=checkout_request_id,
                outcome=Result.UNMATCHED,
            ).values_list("pk", flat=True)
        )


def handle_c2b_confirmation(tenant_id: UUID | str, event_id: int) -> str | None:
    """Match by account reference (never by the masked phone) and settle once per TransID."""
    with tenant_context(tenant_id) as tid:
        event = _claim(tid, event_id, PaymentEvent.Kind.C2B_CONFIRMATION)
        if event is None:
            return None
        txn = C2BTransaction.model_validate_json(event.raw_body)
        payment = _c2b_payment(tid, txn)
        if payment.order_id is None:
            event.payment = payment
            if payment.events.exclude(pk=event.pk).exists():
                return _mark(event, Result.DUPLICATE, needs_review=False, note="")
            return _mark(event, Result.UNMATCHED, needs_review=True, note=payment.review_reason)
        if payment.status in OPEN_STATUSES:
            return _verify_c2b_claim(payment, event)
        evidence = Evidence(result_code="0", receipt=txn.trans_id, amount=txn.trans_amount)
        return settle(payment, event, PAID, evidence)


def _verify_c2b_claim(payment: PaymentRequest, event: PaymentEvent) -> str:
    """Hold the payment; ask Transaction Status, or leave it to staff with no initiator."""
    from payments.tasks import request_c2b_status

    account = mpesa_account(payment.tenant_id)
    can_ask = bool(account.initiator_name and account.security_credential)
    note = (
        "confirmation claimed: confirming by Transaction Status"
        if can_ask
        else "confirmation claimed: no API initiator, staff confirm from the M-Pesa statement"
    )
    first_claim = payment.status == PaymentStatus.PENDING
    result = hold_for_verification(payment, event, note)
    if first_claim and can_ask:
        tenant_id, payment_id = str(payment.tenant_id), payment.pk
        transaction.on_commit(lambda: request_c2b_status.delay(tenant_id, payment_id))
    if first_claim:
        confirming_notice_after_commit(payment)
    return result


def _c2b_payment(tenant_id: UUID, txn: C2BTransaction) -> PaymentRequest:
    """The payment row for this TransID, created once (the unique key decides races)."""
    from tulia.commerce.models import Order

    existing = _locked_by_reference(tenant_id, PaymentMethod.MPESA_C2B, txn.trans_id)
    if existing is not None:
        return existing
    order = Order.objects.filter(tenant_id=tenant_id, reference=txn.account_reference).first()
    try:
        with transaction.atomic():
            PaymentRequest.objects.create(
                tenant_id=tenant_id,
                order=order,
                customer_id=order.customer_id if order else None,
                method=PaymentMethod.MPESA_C2B,
                idempotency_key=f"c2b:{txn.trans_id}",
                amount=order.total if order else txn.trans_amount,
                account_reference=txn.account_reference[:20],
                provider_reference=txn.trans_id,
                **({} if order else _unknown_reference(txn)),
            )
    except IntegrityError:
        logger.info("C2B %s recorded concurrently", txn.trans_id)
    found = _locked_by_reference(tenant_id, PaymentMethod.MPESA_C2B, txn.trans_id)
    assert found is not None
    return found


def _unknown_reference(txn: C2BTransaction) -> dict[str, object]:
    """Money arrived for no order we know: kept as an unknown payment for review."""
    return {
        "status": PaymentStatus.UNKNOWN,
        "receipt": txn.trans_id,
        "paid_amount": txn.trans_amount,
        "completed_at": timezone.now(),
        "needs_review": True,
        "review_reason": f"no order with account reference {txn.account_reference!r}",
    }


def _locked_by_reference(tenant_id: UUID, method: str, reference: str) -> PaymentRequest | None:
    return (
        PaymentRequest.objects.select_for_update()
        .filter(tenant_id=tenant_id, method=method, provider_reference=reference)
        .first()
    )
