"""Processing a stored PesaPal IPN: the IPN is only a hint, GetTransactionStatus decides."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl
from uuid import UUID

import httpx
from django.utils import timezone

from payments.accounts import pesapal_account
from payments.inbox import store_event
from payments.ledger import Evidence, settle
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.outcomes import Outcome, pesapal_outcome
from payments.pesapal.client import PesapalClient
from payments.pesapal.schemas import IpnNotification, TransactionStatus
from payments.refund_checks import card_refund_news, has_card_refund
from tenants.context import tenant_context

Result = PaymentEvent.Outcome


def parse_ipn(raw: str) -> IpnNotification:
    """POST IPNs are JSON; GET IPNs are stored as their query string."""
    text = raw.strip()
    data = json.loads(text) if text.startswith("{") else dict(parse_qsl(text))
    if not isinstance(data, dict):
        raise ValueError("IPN is not an object")
    return IpnNotification.from_mapping(data)


def handle_ipn(
    tenant_id: UUID | str, event_id: int, *, http: httpx.Client | None = None
) -> str | None:
    with tenant_context(tenant_id) as tid:
        event = (
            PaymentEvent.objects.select_for_update()
            .filter(tenant_id=tid, pk=event_id, kind=PaymentEvent.Kind.PESAPAL_IPN)
            .first()
        )
        if event is None or event.outcome not in (Result.RECEIVED, Result.UNMATCHED):
            return None
        ipn = parse_ipn(event.raw_body)
        payment = (
            PaymentRequest.objects.select_for_update()
            .filter(
                tenant_id=tid,
                method=PaymentMethod.PESAPAL_CARD,
                provider_reference=ipn.order_tracking_id,
            )
            .first()
        )
        if payment is None:
            return _finish(event, Result.UNMATCHED, "no checkout with this OrderTrackingId")
        if has_card_refund(payment):  # after a refund, the news is about the refund
            event.payment = payment
            return _finish(event, card_refund_news(payment, http=http), "refund re-queried")
        result = check_status(payment, http=http)
        event.payment = payment
        return _finish(event, result, "status re-queried", review=False)


def check_pending(tenant_id: UUID | str, payment_id: int) -> str | None:
    """Re-check a pending checkout whose IPN may have been lost (the sweeper's path)."""
    with tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update(skip_locked=True)
            .filter(tenant_id=tid, pk=payment_id, status=PaymentStatus.PENDING)
            .first()
        )
        if payment is None:
            return None
        payment.query_count += 1
        payment.last_queried_at = timezone.now()
        payment.save(update_fields=["query_count", "last_queried_at", "updated_at"])
        return check_status(payment)


def check_status(payment: PaymentRequest, *, http: httpx.Client | None = None) -> str:
    """Query PesaPal for the locked `payment`, log the answer, and settle on it."""
    client = PesapalClient(pesapal_account(payment.tenant_id), http=http)
    status = client.transaction_status(payment.provider_reference)
    event = store_event(
        payment.tenant_id,
        PaymentEvent.Kind.PESAPAL_STATUS,
        status.model_dump_json(),
        reference=payment.provider_reference,
    )
    outcome, evidence = _judge(payment, status)
    return settle(payment, event, outcome, evidence)


def _judge(payment: PaymentRequest, status: TransactionStatus) -> tuple[Outcome, Evidence]:
    outcome = pesapal_outcome(status.status_code)
    evidence = Evidence(
        result_code=str(status.status_code if status.status_code is not None else ""),
        result_desc=status.payment_status_description or "",
        receipt=status.confirmation_code or "",
        amount=status.amount if outcome.status == PaymentStatus.PAID else None,
    )
    if outcome.status == PaymentStatus.PAID and not _same_order(payment, status):
        # Paid, but for something that is not this checkout: never mark the order paid.
        return Outcome(PaymentStatus.UNKNOWN, "mismatch"), evidence
    return outcome, evidence


def _same_order(payment: PaymentRequest, status: TransactionStatus) -> bool:
    return (status.currency or "").upper() == payment.currency and (
        status.merchant_reference or ""
    ) == payment.account_reference


def _finish(event: PaymentEvent, result: str, note: str, *, review: bool = True) -> str:
    event.outcome = result
    event.note = note[:255]
    event.needs_review = review and result == Result.UNMATCHED
    event.processed_at = timezone.now()
    event.save(update_fields=["payment", "outcome", "note", "needs_review", "processed_at"])
    return result
