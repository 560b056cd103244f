"""Starting an STK push for an order the customer confirmed, and querying it later."""

from __future__ import annotations

import json
import logging
import re
from decimal import Decimal
from uuid import UUID

import httpx
from django.db import transaction
from django.utils import timezone

from payments.accounts import mpesa_account
from payments.errors import PaymentError, ProviderError
from payments.inbox import store_event
from payments.ledger import Evidence, close_claims, refuse_unconfirmed, settle
from payments.models import MpesaAccount, PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.mpesa.client import DarajaClient, StkPushOrder
from payments.mpesa.schemas import MSISDN_RE, StkCallbackEnvelope, StkQueryResponse
from payments.outcomes import STILL_PENDING, Outcome, stk_outcome
from payments.payable import payable_order, refuse_if_in_flight
from payments.routes import callback_url
from tenants.accessors import tenant_scope
from tenants.context import tenant_context
from tenants.phone import InvalidPhoneNumber, mpesa_msisdn, normalize_phone

logger = logging.getLogger("tulia.payments.mpesa")
ACCOUNT_REFERENCE_MAX = 12
TRANSACTION_DESC_MAX = 13
# Seconds between STK queries confirming a success claim: quick at first (the query
# usually agrees within seconds), then no faster than Daraja's Spike Arrest tolerates.
VERIFY_DELAYS = (1, 2, 3, 5, 8, 13, 20, 30)


def _ascii_ref(text: str, limit: int) -> str:
    """Daraja shows these in the prompt: short, ASCII letters and digits only."""
    return re.sub(r"[^A-Za-z0-9]", "", text)[:limit]


def _msisdn(phone: str) -> str:
    try:
        msisdn = mpesa_msisdn(normalize_phone(phone))
    except InvalidPhoneNumber as exc:
        raise PaymentError("invalid_phone", str(exc)) from exc
    if not MSISDN_RE.match(msisdn):
        raise PaymentError("invalid_phone", "M-Pesa needs a Kenyan mobile number (07… or 01…)")
    return msisdn


def _whole_shillings(total: Decimal) -> int:
    if total < 1 or total != total.to_integral_value():
        raise PaymentError("invalid_amount", "M-Pesa takes whole shillings, at least KES 1")
    return int(total)


def initiate_stk_push(
    tenant_id: UUID | str,
    order_id: int,
    *,
    confirmed_amount: Decimal,
    attempt: int = 1,
    phone: str = "",
    http: httpx.Client | None = None,
) -> PaymentRequest:
    """Idempotent per (order, attempt): the same attempt twice returns the first push."""
    from tulia.commerce.orders import mark_locked_order_payment_pending

    # Joined, not nested, when the payment tool's runner already holds this tenant's
    # context: its savepoint rolls back a failed push just the same, two statements fewer.
    with tenant_scope(tenant_id) as tid:
        key = f"stk:{order_id}:{attempt}"
        existing = PaymentRequest.objects.filter(tenant_id=tid, idempotency_key=key).first()
        if existing is not None:
            return existing
        order = payable_order(tid, order_id, PaymentMethod.MPESA_STK, confirmed_amount)
        amount = _whole_shillings(order.total)
        msisdn = _msisdn(phone or order.customer.phone_e164)
        account = mpesa_account(tid)
        refuse_if_in_flight(tid, order.pk, within_seconds=account.stk_give_up_after_seconds)
        payment = PaymentRequest.objects.create(
            tenant_id=tid,
            order=order,
            customer_id=order.customer_id,
            method=PaymentMethod.MPESA_STK,
            attempt=attempt,
            idempotency_key=key,
            amount=order.total,
            phone_e164="+" + msisdn,
            account_reference=_ascii_ref(order.reference, ACCOUNT_REFERENCE_MAX),
        )
        mark_locked_order_payment_pending(order)  # payable_order locked it
        _push(DarajaClient(account, http=http), payment, amount, msisdn)
        return payment


def _push(client: DarajaClient, payment: PaymentRequest, amount: int, msisdn: str) -> None:
    accepted = client.stk_push(
        StkPushOrder(
            amount=amount,
            msisdn=msisdn,
            account_reference=payment.account_reference,
            description=_ascii_ref(f"Order{payment.account_reference}", TRANSACTION_DESC_MAX),
            callback_url=callback_url(payment.tenant_id, "stk_callback"),
        )
    )
    payment.provider_reference = accepted.checkout_request_id
    payment.merchant_request_id = accepted.merchant_request_id
    payment.save(update_fields=["provider_reference", "merchant_request_id", "updated_at"])
    # A callback may already be stored, unmatched, because this row was not yet
    # committed when it was processed: look for it once we are committed.
    from payments.tasks import reprocess_stk_callbacks

    tenant_id, checkout_id = str(payment.tenant_id), accepted.checkout_request_id
    transaction.on_commit(lambda: reprocess_stk_callbacks.delay(tenant_id, checkout_id))


def query_stk_payment(
    tenant_id: UUID | str,
    payment_id: int,
    *,
    give_up_after: int | None = None,
    http: httpx.Client | None = None,
) -> str | None:
    """Ask Daraja how a silent push ended; its answer wins over waiting."""
    with tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update(skip_locked=True)
            .filter(tenant_id=tid, pk=payment_id, status=PaymentStatus.PENDING)
            .exclude(provider_reference="")
            .first()
        )
        if payment is None:
            return None  # settled meanwhile, or another worker is on it
        account = mpesa_account(tid)
        refused: ProviderError | None = None
        try:
            result = DarajaClient(account, http=http).stk_query(payment.provider_reference)
        except ProviderError as exc:
            if exc.retryable:
                raise  # the task asks again
            # Daraja refuses the question itself (400.002.02 "Invalid CheckoutRequestID"):
            # no answer will ever come, so the push is treated as unanswered and times
            # out on the tenant's clock instead of staying pending for ever.
            result, refused = None, exc
        event = _record_query(payment, result, refused)
        if result is None:
            limit = account.stk_give_up_after_seconds if give_up_after is None else give_up_after
            return _still_waiting(payment, event, limit)
        evidence = Evidence(result_code=result.result_code, result_desc=result.result_desc)
        return settle(payment, event, stk_outcome(result.result_code), evidence)


def _still_waiting(payment: PaymentRequest, event: PaymentEvent, give_up_after: int) -> str:
    age = (timezone.now() - payment.created_at).total_seconds()
    if age < give_up_after:
        return settle(payment, event, STILL_PENDING, Evidence("pending"))
    # Daraja still says "processing" long after the prompt expired: stop waiting. A late
    # success callback after this is a conflict and lands in the reconciliation queue.
    outcome = Outcome(PaymentStatus.TIMEOUT, "timeout")
    return settle(payment, event, outcome, Evidence("timeout", "no answer from M-Pesa"))


def verify_delay(attempt: int) -> int:
    return VERIFY_DELAYS[min(attempt, len(VERIFY_DELAYS)) - 1]


def verify_attempts(account: MpesaAccount) -> int:
    """Queries before giving up: as many as fit in the tenant's STK give-up time."""
    attempts, waited = 1, 0
    while waited < account.stk_give_up_after_seconds:
        waited += verify_delay(attempts)
        attempts += 1
    return attempts


def verify_stk_claim(
    tenant_id: UUID | str, payment_id: int, attempt: int, *, http: httpx.Client | None = None
) -> str | None:
    """Ask Daraja whether a claimed STK success happened; only its answer settles it.

    Returns STILL_PENDING while Daraja says "being processed" and attempts remain
    (the task asks again later), None when there is nothing to verify any more.
    """
    with tenant_context(tenant_id) as tid:
        # Waits for the lock (no skip_locked): a repeated claim holding it for a moment
        # must not end the chain of checks.
        payment = (
            PaymentRequest.objects.select_for_update()
            .filter(tenant_id=tid, pk=payment_id, status=PaymentStatus.PENDING_VERIFICATION)
            .first()
        )
        if payment is None:
            return None  # decided meanwhile
        account = mpesa_account(tid)
        result = DarajaClient(account, http=http).stk_query(payment.provider_reference)
        event = _record_query(payment, result)
        if result is None:
            if attempt < verify_attempts(account):
                return settle(payment, event, STILL_PENDING, Evidence("pending"))
            why = f"STK Push Query still 'being processed' after {attempt} checks"
            return refuse_unconfirmed(payment, event, why)
        if stk_outcome(result.result_code).status != PaymentStatus.PAID:
            why = f"STK Push Query answered {result.result_code} ({result.result_desc[:80]})"
            return refuse_unconfirmed(payment, event, why)
        outcome = settle(payment, event, stk_outcome(result.result_code), _claimed(payment))
        close_claims(payment, event)
        return outcome


def _record_query(
    payment: PaymentRequest,
    result: StkQueryResponse | None,
    refused: ProviderError | None = None,
) -> PaymentEvent:
    payment.query_count += 1
    payment.last_queried_at = timezone.now()
    payment.save(update_fields=["query_count", "last_queried_at", "updated_at"])
    raw = result.model_dump_json(by_alias=True) if result else '{"errorCode":"500.001.1001"}'
    if refused is not None:
        raw = json.dumps({"errorCode": refused.code, "errorMessage": refused.message[:200]})
    return store_event(
        payment.tenant_id, PaymentEvent.Kind.STK_QUERY, raw, reference=payment.provider_reference
    )


def _claimed(payment: PaymentRequest) -> Evidence:
    """The receipt, amount and payer the (now confirmed) success callback gave."""
    from payments.mpesa.handlers import stk_claim_evidence

    claim = (
        payment.events.filter(
            kind=PaymentEvent.Kind.STK_CALLBACK, outcome=PaymentEvent.Outcome.VERIFYING
        )
        .order_by("-received_at", "-pk")
        .first()
    )
    if claim is None:
        return Evidence("0")
    return stk_claim_evidence(StkCallbackEnvelope.model_validate_json(claim.raw_body).callback)
