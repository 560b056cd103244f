"""Confirming a C2B payment with Daraja's Transaction Status API (asynchronous).

The call is only acknowledged (with a ConversationID); M-Pesa posts its verdict later
to our ResultURL, or to the QueueTimeOutURL when its queue gave up. A verdict counts
only when its OriginatorConversationID (ours, random, never shown to anyone) and its
ConversationID (Daraja's answer to our call) both match a call we made, once.
"""

from __future__ import annotations

import logging
from uuid import UUID, uuid4

import httpx
from django.utils import timezone

from payments.accounts import mpesa_account
from payments.inbox import store_event
from payments.ledger import Evidence, close_claims, refuse_unconfirmed, settle
from payments.models import (
    MpesaAccount,
    PaymentEvent,
    PaymentMethod,
    PaymentRequest,
    PaymentStatus,
    TransactionStatusCheck,
)
from payments.mpesa.client import DarajaClient
from payments.mpesa.schemas import TxnStatusEnvelope, TxnStatusResult
from payments.outcomes import PAID
from payments.routes import callback_url
from tenants.context import tenant_context

logger = logging.getLogger("tulia.payments.mpesa")
Result = PaymentEvent.Outcome
# Calls per payment before an unanswered claim is given up (the sweep re-asks).
MAX_STATUS_CALLS = 3


def request_status(
    tenant_id: UUID | str, payment_id: int, *, http: httpx.Client | None = None
) -> str | None:
    """Ask M-Pesa about a held C2B payment; the OriginatorConversationID is ours."""
    with tenant_context(tenant_id) as tid:
        payment = PaymentRequest.objects.filter(
            tenant_id=tid,
            pk=payment_id,
            method=PaymentMethod.MPESA_C2B,
            status=PaymentStatus.PENDING_VERIFICATION,
        ).first()
        if payment is None:
            return None
        asked = TransactionStatusCheck.objects.filter(tenant_id=tid, payment=payment).count()
        if asked >= MAX_STATUS_CALLS:
            return _give_up(payment, asked)
        check = TransactionStatusCheck.objects.create(
            tenant_id=tid, payment=payment, originator_conversation_id=f"tulia-{uuid4().hex}"
        )
        # Marks when we last asked: the sweep asks again only after a quiet while.
        PaymentRequest.objects.filter(tenant_id=tid, pk=payment.pk).update(
            last_queried_at=timezone.now(), query_count=asked + 1
        )
    # The check row is committed before the call: the verdict may arrive before we
    # have read the acknowledgement, and must find the call it answers.
    accepted = DarajaClient(mpesa_account(tid), http=http).transaction_status(
        payment.provider_reference,
        check.originator_conversation_id,
        callback_url(tid, "txn_status_result"),
        callback_url(tid, "txn_status_timeout"),
    )
    with tenant_context(tid):
        TransactionStatusCheck.objects.filter(tenant_id=tid, pk=check.pk).update(
            conversation_id=accepted.conversation_id[:64]
        )
    _reprocess_waiting(tid, check.originator_conversation_id)
    return check.originator_conversation_id


def _give_up(payment: PaymentRequest, asked: int) -> str:
    """M-Pesa never gave a verdict on our calls: treated like a denial, for a person."""
    locked = PaymentRequest.objects.select_for_update().get(pk=payment.pk)
    event = store_event(
        payment.tenant_id,
        PaymentEvent.Kind.TXN_STATUS_TIMEOUT,
        "",
        reference=payment.provider_reference,
        note=f"no verdict after {asked} Transaction Status calls",
    )
    return refuse_unconfirmed(locked, event, f"no Transaction Status verdict after {asked} calls")


def _reprocess_waiting(tenant_id: UUID, originator_id: str) -> None:
    from payments.tasks import reprocess_status_results

    reprocess_status_results.delay(str(tenant_id), originator_id)


def results_waiting_for(tenant_id: UUID | str, originator_id: str) -> list[int]:
    """Verdicts that arrived before we had stored the call's ConversationID."""
    with tenant_context(tenant_id) as tid:
        return list(
            PaymentEvent.objects.filter(
                tenant_id=tid,
                kind__in=(
                    PaymentEvent.Kind.TXN_STATUS_RESULT,
                    PaymentEvent.Kind.TXN_STATUS_TIMEOUT,
                ),
                reference=originator_id,
                outcome=Result.UNMATCHED,
                needs_review=False,
            ).values_list("pk", flat=True)
        )


def handle_status_result(tenant_id: UUID | str, event_id: int) -> str | None:
    """Apply a Transaction Status verdict (result or queue timeout) to its payment."""
    with tenant_context(tenant_id) as tid:
        event = (
            PaymentEvent.objects.select_for_update()
            .filter(
                tenant_id=tid,
                pk=event_id,
                kind__in=(
                    PaymentEvent.Kind.TXN_STATUS_RESULT,
                    PaymentEvent.Kind.TXN_STATUS_TIMEOUT,
                ),
                outcome__in=(Result.RECEIVED, Result.UNMATCHED),
            )
            .first()
        )
        if event is None:
            return None
        result = TxnStatusEnvelope.model_validate_json(event.raw_body).result
        check = (
            TransactionStatusCheck.objects.select_for_update()
            .filter(tenant_id=tid, originator_conversation_id=result.originator_conversation_id)
            .first()
        )
        problem = _unmatched(check, result)
        if problem is not None:
            waiting = problem == ""
            return _finish(event, Result.UNMATCHED, problem or "call not yet acknowledged", waiting)
        assert check is not None
        return _apply(check, event, result)


def _unmatched(check: TransactionStatusCheck | None, result: TxnStatusResult) -> str | None:
    """None when the verdict answers our call; "" while our call is not yet acknowledged."""
    if check is None:
        return "no Transaction Status call of ours has this OriginatorConversationID"
    if not check.conversation_id:
        return ""
    if check.conversation_id != result.conversation_id:
        return "ConversationID does not match our Transaction Status call"
    return None


def _apply(check: TransactionStatusCheck, event: PaymentEvent, result: TxnStatusResult) -> str:
    payment = PaymentRequest.objects.select_for_update().get(pk=check.payment_id)
    if check.answered_at is not None:
        event.payment = payment
        return _finish(event, Result.DUPLICATE, "call already answered", waiting=True)
    check.answered_at = timezone.now()
    check.save(update_fields=["answered_at"])
    account = mpesa_account(payment.tenant_id)
    if event.kind == PaymentEvent.Kind.TXN_STATUS_TIMEOUT:
        return refuse_unconfirmed(payment, event, "Transaction Status timed out in Daraja's queue")
    denial = _denial(payment, account, result)
    if denial:
        return refuse_unconfirmed(payment, event, denial)
    evidence = Evidence(
        result_code="0",
        result_desc=result.result_desc,
        receipt=result.receipt,
        amount=result.amount,
    )
    outcome = settle(payment, event, PAID, evidence)
    close_claims(payment, event)
    return outcome


def _denial(payment: PaymentRequest, account: MpesaAccount, result: TxnStatusResult) -> str:
    """Why M-Pesa's answer does not back the claim; "" when it does."""
    if not result.completed:
        return f"Transaction Status answered {result.result_code} ({result.result_desc[:80]})"
    if result.receipt != payment.provider_reference:
        return f"Transaction Status is about receipt {result.receipt!r}, not this one"
    credit = str(result.param("CreditPartyName") or "")
    if credit and not credit.startswith((account.shortcode, account.party_b)):
        return "Transaction Status shows the money went to another business"
    return ""


def _finish(event: PaymentEvent, outcome: str, note: str, waiting: bool = False) -> str:
    event.outcome = outcome
    event.note = note[:255]
    event.needs_review = not waiting
    event.processed_at = timezone.now()
    event.save(update_fields=["payment", "outcome", "note", "needs_review", "processed_at"])
    if not waiting:
        logger.warning("status verdict %s for tenant %s: %s", event.pk, event.tenant_id, note)
    return outcome
