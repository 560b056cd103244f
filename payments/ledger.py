"""The one place a payment's status changes (STYLE 6).

Callers hold the payment row lock (`select_for_update`) inside the tenant's context.
The first authoritative result wins; the same result again is a duplicate and changes
nothing; a different result is a conflict: kept, flagged and logged loudly, never
applied. The order becomes paid only here, from a matched provider result.

A success *claim* (a callback anyone holding the URL could post) is never a result:
`hold_for_verification` parks the payment until the provider's own query answers,
and `refuse_unconfirmed` ends it as suspected forgery when the provider does not back
the claim.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from payments.models import OPEN_STATUSES, PaymentEvent, PaymentRequest, PaymentStatus
from payments.outcomes import Outcome
from tulia.observability import metrics

logger = logging.getLogger("tulia.payments")
Result = PaymentEvent.Outcome


@dataclass(frozen=True)
class Evidence:
    """What the provider said, in our terms."""

    result_code: str
    result_desc: str = ""
    receipt: str = ""
    # The amount the provider reports as paid; None when it does not say (queries).
    amount: Decimal | None = None
    # The paying MSISDN when the provider gives a plain one (STK callbacks).
    phone: str = ""


def settle(payment: PaymentRequest, event: PaymentEvent, outcome: Outcome, ev: Evidence) -> str:
    """Apply `outcome` to the locked `payment`; record on `event` what happened."""
    event.payment = payment
    _answer_earlier_flag(event)
    result: str
    if outcome.status == PaymentStatus.PENDING:
        result = Result.STILL_PENDING if payment.status in OPEN_STATUSES else Result.DUPLICATE
    elif payment.status in OPEN_STATUSES:
        result = _first_result(payment, event, outcome, ev)
    else:
        result = _later_result(payment, event, outcome, ev)
    _finish_event(event, result)
    return result


def _first_result(
    payment: PaymentRequest, event: PaymentEvent, outcome: Outcome, ev: Evidence
) -> str:
    if ev.receipt and _receipt_used_elsewhere(payment, ev.receipt):
        # A receipt is one M-Pesa transaction: seen on another payment, it is a replay
        # or a provider mix-up, and proves nothing about this payment.
        note = f"receipt {ev.receipt} already recorded on another payment"
        logger.error("payment %s tenant %s: %s", payment.pk, payment.tenant_id, note)
        _flag(event, note)
        return Result.CONFLICT
    if (
        outcome.status == PaymentStatus.PAID
        and ev.amount is not None
        and ev.amount != payment.amount
    ):
        note = f"amount mismatch: expected {payment.amount}, provider reports {ev.amount}"
        _transition(payment, PaymentStatus.UNKNOWN, ev, review=note)
        _flag(event, note)
        return Result.MISMATCH
    review = "" if outcome.status != PaymentStatus.UNKNOWN else f"provider result {outcome.reason}"
    if outcome.status == PaymentStatus.PAID and _other_phone(payment, ev.phone):
        # The money arrived (the receipt and amount match), so the order is paid, but
        # a payer other than the prompted number is worth a look.
        review = f"paid from another number ending {ev.phone[-3:]}"
        _flag(event, review)
    _transition(payment, outcome.status, ev, review=review)
    if outcome.status == PaymentStatus.PAID:
        _mark_order_paid(payment, event)
    return Result.APPLIED


def hold_for_verification(payment: PaymentRequest, event: PaymentEvent, note: str) -> str:
    """Park an open `payment` on a success claim until the provider confirms it.

    Callers enqueue the provider check first, then `confirming_notice_after_commit`:
    the customer hears "we are confirming" only if the check is still running by then.
    """
    event.payment = payment
    _answer_earlier_flag(event)
    event.note = note[:255]
    if payment.status == PaymentStatus.PENDING:
        payment.status = PaymentStatus.PENDING_VERIFICATION
        payment.save(update_fields=["status", "updated_at"])
    _finish_event(event, Result.VERIFYING)
    return Result.VERIFYING


# Most verdicts come within seconds; a customer told "confirming" and then "received"
# a second later has learnt nothing. Only a slower check is announced.
CONFIRMING_NOTICE_AFTER_SECONDS = 10


def confirming_notice_after_commit(payment: PaymentRequest) -> None:
    from payments.tasks import notify_payment_outcome

    tenant_id, payment_id = str(payment.tenant_id), payment.pk
    transaction.on_commit(
        lambda: notify_payment_outcome.apply_async(
            (tenant_id, payment_id), countdown=CONFIRMING_NOTICE_AFTER_SECONDS
        )
    )


def refuse_unconfirmed(payment: PaymentRequest, event: PaymentEvent, why: str) -> str:
    """The provider denied a success claim or never confirmed it: suspected forgery.

    The payment ends unknown (a person decides, the order stays unpaid), the claim and
    the verdict wait in the reconciliation queue, the customer hears that nothing is
    confirmed. The error log line is the shop's alert until owners get notifications.
    """
    event.payment = payment
    _answer_earlier_flag(event)
    if payment.status not in OPEN_STATUSES:
        _finish_event(event, Result.DUPLICATE)
        return Result.DUPLICATE
    note = f"suspected forgery: {why}"
    logger.error(
        "payment %s tenant %s: %s; order left unpaid, kept for the owner",
        payment.pk,
        payment.tenant_id,
        note,
    )
    payment.suspected_forgery = True
    _transition(payment, PaymentStatus.UNKNOWN, Evidence("unconfirmed", why), review=note)
    for claim in payment.events.filter(outcome=Result.VERIFYING).exclude(pk=event.pk):
        claim.outcome, claim.needs_review, claim.note = Result.UNCONFIRMED, True, note[:255]
        claim.save(update_fields=["outcome", "needs_review", "note"])
    _flag(event, note)
    _finish_event(event, Result.UNCONFIRMED)
    return Result.UNCONFIRMED


def close_claims(payment: PaymentRequest, verdict: PaymentEvent) -> None:
    """The claims a provider verdict just answered: the first takes the verdict's outcome,
    the same claim again is a duplicate, a different one is a conflict for a person."""
    claims = payment.events.filter(outcome=Result.VERIFYING).exclude(pk=verdict.pk)
    first: PaymentEvent | None = None
    for claim in claims.order_by("received_at", "pk"):
        if first is None:
            first = claim
            claim.outcome, claim.needs_review = verdict.outcome, verdict.needs_review
            claim.note = verdict.note
        elif claim.raw_body == first.raw_body:
            claim.outcome = Result.DUPLICATE
        else:
            claim.outcome, claim.needs_review = Result.CONFLICT, True
            claim.note = "a different claim for the same payment"
        # processed_at stays when the claim was held: the verdict has its own event.
        claim.save(update_fields=["outcome", "needs_review", "note"])


def _other_phone(payment: PaymentRequest, phone: str) -> bool:
    plain = phone.isdigit() and len(phone) == 12
    return plain and bool(payment.phone_e164) and payment.phone_e164.lstrip("+") != phone


def _receipt_used_elsewhere(payment: PaymentRequest, receipt: str) -> bool:
    return (
        PaymentRequest.objects.filter(
            tenant_id=payment.tenant_id, method=payment.method, receipt=receipt
        )
        .exclude(pk=payment.pk)
        .exists()
    )


def _later_result(
    payment: PaymentRequest, event: PaymentEvent, outcome: Outcome, ev: Evidence
) -> str:
    same_receipt = not ev.receipt or not payment.receipt or ev.receipt == payment.receipt
    same_amount = (
        ev.amount is None or payment.paid_amount is None or ev.amount == payment.paid_amount
    )
    same_status = outcome.status == payment.status or (
        payment.status == PaymentStatus.UNKNOWN and ev.result_code == payment.result_code
    )
    if same_status and same_receipt and same_amount:
        if ev.receipt and not payment.receipt and not _receipt_used_elsewhere(payment, ev.receipt):
            # A query said paid without a receipt; the callback brings it. Not a change.
            payment.receipt = ev.receipt
            payment.save(update_fields=["receipt", "updated_at"])
        return Result.DUPLICATE
    note = f"conflicting result {ev.result_code} ({outcome.status}) after {payment.status}"
    logger.error(
        "payment %s tenant %s: %s; kept for reconciliation, not applied",
        payment.pk,
        payment.tenant_id,
        note,
    )
    _flag(event, note)
    payment.needs_review = True
    payment.review_reason = note[:255]
    payment.save(update_fields=["needs_review", "review_reason", "updated_at"])
    return Result.CONFLICT


def _transition(payment: PaymentRequest, status: str, ev: Evidence, *, review: str) -> None:
    payment.status = status
    payment.result_code = ev.result_code[:32]
    payment.result_desc = ev.result_desc[:255]
    payment.receipt = ev.receipt[:40]
    payment.paid_amount = (
        ev.amount if status in (PaymentStatus.PAID, PaymentStatus.UNKNOWN) else None
    )
    payment.completed_at = timezone.now()
    if review:
        payment.needs_review = True
        payment.review_reason = review[:255]
    payment.save()
    _count_after_commit(payment.method, status)
    _notify_after_commit(payment)


def _mark_order_paid(payment: PaymentRequest, event: PaymentEvent) -> None:
    from tulia.commerce.errors import PaymentConflict
    from tulia.commerce.orders import mark_order_paid

    if payment.order_id is None:
        return
    reference = payment.receipt or f"{payment.method}:{payment.provider_reference}"
    try:
        mark_order_paid(payment.tenant_id, payment.order_id, payment_reference=reference)
    except PaymentConflict as exc:
        # Paid twice (e.g. STK and C2B): the money is real, a person refunds or keeps it.
        note = f"order already paid by another payment: {exc}"
        logger.error("payment %s: %s", payment.pk, note)
        _flag(event, note)
        payment.needs_review = True
        payment.review_reason = note[:255]
        payment.save(update_fields=["needs_review", "review_reason", "updated_at"])


def _flag(event: PaymentEvent, note: str) -> None:
    event.needs_review = True
    event.note = note[:255]


def _answer_earlier_flag(event: PaymentEvent) -> None:
    """An event flagged on an earlier pass ("unmatched") is answered by matching it now.

    Cleared before the pass, not after it: a flag this pass raises (paid twice, paid
    from another number, a conflict) is for a person and must reach the queue.
    """
    event.needs_review = False


def _finish_event(event: PaymentEvent, result: str) -> None:
    event.outcome = result
    event.processed_at = timezone.now()
    event.save(update_fields=["payment", "outcome", "note", "needs_review", "processed_at"])


def _count_after_commit(method: str, status: str) -> None:
    """Counted on commit: a rolled-back settle is retried and must not count twice."""
    counter = metrics.PAYMENT_OUTCOMES.labels(provider=method, outcome=status)
    transaction.on_commit(counter.inc)


def _notify_after_commit(payment: PaymentRequest) -> None:
    from payments.tasks import notify_payment_outcome

    tenant_id, payment_id = str(payment.tenant_id), payment.pk
    transaction.on_commit(lambda: notify_payment_outcome.delay(tenant_id, payment_id))
