"""A person resolves the reconciliation queue: money that arrived for no order we know.

Suggestions rank the shop's unpaid orders against the unmatched money (same amount,
near in time, a reference that looks like what the payer typed). "Match" is the
shop's word that this money, seen on its M-Pesa statement, pays that order: it goes
through the ledger like any provider result (first result wins, a receipt counts
once), so a second match or an already-paid order is refused, never applied twice.
"Ignore" closes the item with the reason. "Refund" sends the money (all of it, or
a part) back to the payer by the method it came with (payments.refunds): the payment
row is locked while what is left is reckoned, so refunds never pass what arrived,
one refund per form (its key) is recorded however often it is sent, and money with
any refund is no longer matched to an order. All are stored as staff events (who,
what, when, why) beside the money they answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from difflib import SequenceMatcher
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from payments.errors import PaymentError
from payments.inbox import enqueue_after_commit, store_event
from payments.ledger import Evidence, close_claims, settle
from payments.models import (
    PaymentEvent,
    PaymentRequest,
    PaymentStatus,
    Refund,
    RefundMethod,
    RefundStatus,
)
from payments.outcomes import PAID
from payments.refunds import finish_refund, not_failed_total, received, refund_method
from tenants.context import tenant_context
from tulia.commerce.models import Order, OrderStatus

UNPAID = (OrderStatus.DRAFT, OrderStatus.PENDING_PAYMENT)
# Orders further than this from the payment are not suggested (payers pay late, rarely
# days late; the order list's search finds the rest).
SUGGEST_WITHIN = timedelta(days=3)
SUGGESTIONS = 5


class ReconcileError(PaymentError):
    """The match or ignore cannot be done as asked; the message says why, for staff."""

    def __init__(self, message: str) -> None:
        super().__init__("reconcile_refused", message)


@dataclass(frozen=True)
class Suggestion:
    order_id: int
    reference: str
    total: Decimal
    customer: str
    created_at: object
    score: int
    reasons: tuple[str, ...]


def unmatched_money(tenant_id: UUID | str, event_id: int) -> PaymentRequest | None:
    """The unmatched payment a queue item is about, if it is one a person can match."""
    with tenant_context(tenant_id) as tid:
        event = PaymentEvent.objects.filter(tenant_id=tid, pk=event_id).first()
        if event is None or event.payment_id is None:
            return None
        return PaymentRequest.objects.filter(
            tenant_id=tid, pk=event.payment_id, order__isnull=True, status=PaymentStatus.UNKNOWN
        ).first()


def suggest_orders(tenant_id: UUID | str, payment: PaymentRequest) -> list[Suggestion]:
    paid = payment.paid_amount or payment.amount
    moment = payment.completed_at or payment.created_at
    with tenant_context(tenant_id) as tid:
        candidates = (
            Order.objects.filter(
                tenant_id=tid,
                status__in=UNPAID,
                created_at__gte=moment - SUGGEST_WITHIN,
                created_at__lte=moment + SUGGEST_WITHIN,
            )
            .select_related("customer")
            .order_by("-created_at")[:200]
        )
        ranked = [_suggestion(order, payment, paid, moment) for order in candidates]
    ranked = [s for s in ranked if s.score > 0]
    return sorted(ranked, key=lambda s: -s.score)[:SUGGESTIONS]


def _suggestion(order: Order, payment: PaymentRequest, paid: Decimal, moment: object) -> Suggestion:
    reasons: list[str] = []
    score = 0
    if order.total == paid:
        score += 50
        reasons.append("same amount")
    typed = payment.account_reference.upper()
    if typed and SequenceMatcher(None, typed, order.reference).ratio() >= 0.6:
        score += 30
        reasons.append(f"reference {typed!r} looks like {order.reference}")
    if payment.phone_e164 and payment.phone_e164 == order.customer.phone_e164:
        score += 30
        reasons.append("same phone")
    hours = abs((order.created_at - moment).total_seconds()) / 3600  # type: ignore[operator]
    if hours <= 2:
        score += 10
        reasons.append("ordered within 2 hours")
    return Suggestion(
        order_id=order.pk,
        reference=order.reference,
        total=order.total,
        customer=order.customer.display_name or order.customer.phone_e164,
        created_at=order.created_at,
        score=score if order.total == paid else 0,  # a different amount is never a match
        reasons=tuple(reasons),
    )


def match_to_order(tenant_id: UUID | str, payment_id: int, order_id: int, *, staff: str) -> str:
    """The unmatched money pays the order (seen on the statement by `staff`)."""
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update()
            .filter(tenant_id=tid, pk=payment_id, order__isnull=True, status=PaymentStatus.UNKNOWN)
            .first()
        )
        if payment is None:
            raise ReconcileError("this money is already matched or is not waiting for a match")
        if refunded(payment) > 0:
            raise ReconcileError("part of this money went back to the payer: refund or ignore")
        order = Order.objects.select_for_update().filter(tenant_id=tid, pk=order_id).first()
        if order is None or order.status not in UNPAID:
            raise ReconcileError("that order is not waiting for payment")
        if order.total != payment.paid_amount:
            raise ReconcileError(
                f"amounts differ: order {order.reference} is {order.total}, "
                f"the money is {payment.paid_amount}"
            )
        record = {"decision": "matched", "staff": staff, "order": order.reference}
        event = store_event(
            tid,
            PaymentEvent.Kind.STAFF_CONFIRMATION,
            json.dumps(record),
            reference=payment.receipt,
            note=f"matched to order {order.reference} by {staff}",
        )
        # Back to open so the ledger applies the staff's word as the first result.
        payment.order, payment.customer_id = order, order.customer_id
        payment.amount, payment.status = order.total, PaymentStatus.PENDING
        payment.save(update_fields=["order", "customer", "amount", "status", "updated_at"])
        evidence = Evidence(
            result_code="0",
            result_desc=f"matched from the M-Pesa statement by {staff}"[:255],
            receipt=payment.receipt,
            amount=payment.paid_amount,
        )
        outcome = settle(payment, event, PAID, evidence)
        close_claims(payment, event)
        _close_review(payment, f"matched to order {order.reference} by {staff}")
        return outcome


def ignore(tenant_id: UUID | str, event_id: int, *, staff: str, reason: str) -> None:
    """Close a queue item with the reason (kept on the item and as a staff event)."""
    reason = reason.strip()
    if not reason:
        raise ReconcileError("say why this can be ignored")
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        event = PaymentEvent.objects.select_for_update().filter(tenant_id=tid, pk=event_id).first()
        if event is None or event.reviewed_at is not None:
            raise ReconcileError("this item is not waiting for review")
        note = f"ignored by {staff}: {reason}"
        store_event(
            tid,
            PaymentEvent.Kind.STAFF_CONFIRMATION,
            json.dumps({"decision": "ignored", "staff": staff, "event": event.pk, "why": reason}),
            reference=event.reference,
            note=note,
        )
        event.reviewed_at, event.note = timezone.now(), note[:255]
        event.save(update_fields=["reviewed_at", "note"])
        if event.payment_id is not None:
            payment = PaymentRequest.objects.get(tenant_id=tid, pk=event.payment_id)
            _close_review(payment, note)


def _close_review(payment: PaymentRequest, note: str) -> None:
    now = timezone.now()
    payment.reviewed_at, payment.review_reason = now, note[:255]
    payment.save(update_fields=["reviewed_at", "review_reason", "updated_at"])
    PaymentEvent.objects.filter(
        tenant_id=payment.tenant_id, payment=payment, needs_review=True, reviewed_at=None
    ).update(reviewed_at=now)


def refunded(payment: PaymentRequest) -> Decimal:
    """Refunds of this money that have not failed (sent, on their way, or just asked)."""
    return not_failed_total(Refund.objects.filter(tenant_id=payment.tenant_id, payment=payment))


def refund_unmatched(
    tenant_id: UUID | str,
    payment_id: int,
    amount: Decimal | None,
    *,
    key: str,
    staff: str,
    reason: str,
) -> Refund:
    """Send `amount` (None: all that is left) of money with no order back to the payer,
    once per `key`. All of it gone back, the item leaves the queue; a part, it stays
    with what is left for another decision."""
    reason = reason.strip()
    if not reason:
        raise ReconcileError("say why this money goes back")
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update()
            .filter(tenant_id=tid, pk=payment_id, order__isnull=True)
            .first()
        )
        if payment is None:
            raise ReconcileError("this money is not waiting for a decision")
        existing = Refund.objects.filter(tenant_id=tid, idempotency_key=key[:80]).first()
        if existing is not None and existing.payment_id != payment.pk:
            raise ReconcileError("this form was for other money: open the item again")
        if existing is not None and existing.status != RefundStatus.FAILED:
            return existing  # the same form sent again (a double click, a reload)
        if payment.status != PaymentStatus.UNKNOWN:
            raise ReconcileError("this money is not waiting for a decision")
        left = received(payment) - refunded(payment)
        wanted = left if amount is None else amount
        if wanted <= 0 or wanted > left:
            raise ReconcileError(f"at most {left} of this money can go back, not {wanted}")
        refund = existing or Refund(tenant_id=tid, payment=payment, idempotency_key=key[:80])
        refund.amount, refund.actor, refund.reason = wanted, f"staff:{staff}"[:80], reason[:200]
        refund.method, refund.status = refund_method(tid, payment), RefundStatus.REQUESTED
        refund.result_note = ""
        refund.save()
        note = f"refund of {wanted} by {staff}: {reason}"
        record = {"decision": "refunded", "staff": staff, "amount": str(wanted), "why": reason}
        event = store_event(
            tid,
            PaymentEvent.Kind.STAFF_CONFIRMATION,
            json.dumps({**record, "refund": refund.pk}),
            reference=payment.receipt,
            note=note,
        )
        event.payment = payment
        event.save(update_fields=["payment"])
        if wanted == left:
            _close_review(payment, note)
        if refund.method == RefundMethod.MANUAL:
            finish_refund(refund, RefundStatus.SUCCEEDED, f"recorded by {staff}"[:255])
        else:
            from payments import tasks

            enqueue_after_commit(tasks.submit_refund, str(tid), refund.pk)
        return refund
