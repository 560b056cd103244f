"""Provider callbacks: tenant from the URL → source check → parse → store raw → enqueue → ack.

Nothing here changes a payment. Answers are fast and in each provider's documented
shape; the work happens in Celery after the stored event has committed. Each URL
carries the tenant's secret for that one purpose (payments.routes): the card return
secret, which customers see, opens no other callback.
"""

from __future__ import annotations

import json
import logging
from uuid import UUID

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from pydantic import ValidationError

from payments import tasks
from payments.accounts import mpesa_account
from payments.errors import NotConfigured
from payments.inbox import body_text, client_ip, enqueue_after_commit, json_object, store_event
from payments.messages import card_return_text
from payments.models import CallbackPurpose, PaymentEvent
from payments.mpesa.c2b import ACCEPT, validate_c2b
from payments.mpesa.schemas import C2BTransaction, StkCallbackEnvelope, TxnStatusEnvelope
from payments.mpesa.security import source_allowed
from payments.pesapal.handlers import parse_ipn
from payments.routes import tenant_for_secret

logger = logging.getLogger("tulia.payments")
Kind = PaymentEvent.Kind
DARAJA_OK = {"ResultCode": 0, "ResultDesc": "Accepted"}
DARAJA_REFUSED = {"ResultCode": 1, "ResultDesc": "Rejected"}


def _daraja_tenant(request: HttpRequest, token: str, purpose: str) -> UUID | HttpResponse:
    """The tenant whose `purpose` secret `token` is, or the response refusing the callback."""
    tenant_id = tenant_for_secret(token, purpose)
    if tenant_id is None:
        return JsonResponse(DARAJA_REFUSED, status=404)
    try:
        mode = mpesa_account(tenant_id).source_ip_check
    except NotConfigured:
        return JsonResponse(DARAJA_REFUSED, status=404)
    if not source_allowed(mode, client_ip(request), tenant_id=tenant_id):
        return JsonResponse(DARAJA_REFUSED, status=403)
    return tenant_id


@csrf_exempt
@require_POST
def stk_callback(request: HttpRequest, token: str) -> HttpResponse:
    tenant_id = _daraja_tenant(request, token, CallbackPurpose.STK)
    if isinstance(tenant_id, HttpResponse):
        return tenant_id
    raw = body_text(request)
    try:
        callback = StkCallbackEnvelope.model_validate_json(raw).callback
    except ValidationError as exc:
        store_event(
            tenant_id,
            Kind.STK_CALLBACK,
            raw,
            source_ip=client_ip(request),
            invalid=f"unparseable STK callback: {exc.error_count()} error(s)",
        )
        return JsonResponse(DARAJA_REFUSED, status=400)
    event = store_event(
        tenant_id,
        Kind.STK_CALLBACK,
        raw,
        reference=callback.checkout_request_id,
        source_ip=client_ip(request),
    )
    enqueue_after_commit(tasks.process_stk_callback, str(tenant_id), event.pk)
    return JsonResponse(DARAJA_OK)


@csrf_exempt
@require_POST
def c2b_validation(request: HttpRequest, token: str) -> HttpResponse:
    """Answered synchronously (Safaricom waits ~8 s); logged like every callback."""
    tenant_id = _daraja_tenant(request, token, CallbackPurpose.C2B)
    if isinstance(tenant_id, HttpResponse):
        return tenant_id
    raw = body_text(request)
    try:
        txn = C2BTransaction.model_validate_json(raw)
    except ValidationError:
        store_event(
            tenant_id,
            Kind.C2B_VALIDATION,
            raw,
            source_ip=client_ip(request),
            invalid="unparseable C2B validation",
        )
        return JsonResponse({"ResultCode": "C2B00016", "ResultDesc": "Rejected"})
    code, desc = validate_c2b(tenant_id, txn)
    accepted = code == ACCEPT[0]
    store_event(
        tenant_id,
        Kind.C2B_VALIDATION,
        raw,
        reference=txn.trans_id,
        source_ip=client_ip(request),
        outcome=PaymentEvent.Outcome.ACCEPTED if accepted else PaymentEvent.Outcome.REJECTED,
        note=f"{code} {desc}",
    )
    return JsonResponse({"ResultCode": code, "ResultDesc": desc})


@csrf_exempt
@require_POST
def c2b_confirmation(request: HttpRequest, token: str) -> HttpResponse:
    tenant_id = _daraja_tenant(request, token, CallbackPurpose.C2B)
    if isinstance(tenant_id, HttpResponse):
        return tenant_id
    raw = body_text(request)
    try:
        txn = C2BTransaction.model_validate_json(raw)
    except ValidationError:
        # Money may have moved: keep it for a person even though we cannot read it.
        store_event(
            tenant_id,
            Kind.C2B_CONFIRMATION,
            raw,
            source_ip=client_ip(request),
            invalid="unparseable C2B confirmation",
        )
        return JsonResponse({"ResultCode": 0, "ResultDesc": "Success"})
    event = store_event(
        tenant_id,
        Kind.C2B_CONFIRMATION,
        raw,
        reference=txn.trans_id,
        source_ip=client_ip(request),
    )
    enqueue_after_commit(tasks.process_c2b_confirmation, str(tenant_id), event.pk)
    return JsonResponse({"ResultCode": 0, "ResultDesc": "Success"})


@csrf_exempt
@require_http_methods(["GET", "POST"])
def pesapal_ipn(request: HttpRequest, token: str) -> HttpResponse:
    """Acknowledged in PesaPal's JSON shape; 500 asks PesaPal to send it again."""
    tenant_id = tenant_for_secret(token, CallbackPurpose.PESAPAL_IPN)
    if tenant_id is None:
        return JsonResponse({"status": 500}, status=404)
    raw = body_text(request) if request.method == "POST" else request.META.get("QUERY_STRING", "")
    try:
        ipn = parse_ipn(raw)
    except (ValueError, ValidationError):
        store_event(
            tenant_id,
            Kind.PESAPAL_IPN,
            raw,
            source_ip=client_ip(request),
            invalid="unparseable PesaPal IPN",
        )
        data = json_object(raw) or {}
        return JsonResponse({**_echo(data), "status": 500})
    event = store_event(
        tenant_id,
        Kind.PESAPAL_IPN,
        raw,
        reference=ipn.order_tracking_id,
        source_ip=client_ip(request),
    )
    enqueue_after_commit(tasks.process_pesapal_ipn, str(tenant_id), event.pk)
    return JsonResponse(ipn.acknowledgement(200))


def _echo(data: dict[str, object]) -> dict[str, object]:
    return {
        "orderNotificationType": data.get("OrderNotificationType", ""),
        "orderTrackingId": data.get("OrderTrackingId", ""),
        "orderMerchantReference": data.get("OrderMerchantReference", ""),
    }


@csrf_exempt
@require_POST
def txn_status_result(request: HttpRequest, token: str) -> HttpResponse:
    """The verdict of a Transaction Status call we made (matched later, in Celery)."""
    return _txn_status(request, token, Kind.TXN_STATUS_RESULT)


@csrf_exempt
@require_POST
def txn_status_timeout(request: HttpRequest, token: str) -> HttpResponse:
    """Daraja's queue gave up on a Transaction Status call we made."""
    return _txn_status(request, token, Kind.TXN_STATUS_TIMEOUT)


@csrf_exempt
@require_POST
def refund_result(request: HttpRequest, token: str) -> HttpResponse:
    """The result of a Reversal or B2C refund we asked for (matched later, in Celery)."""
    return _txn_status(request, token, Kind.REFUND_RESULT, purpose=CallbackPurpose.REFUND)


@csrf_exempt
@require_POST
def refund_timeout(request: HttpRequest, token: str) -> HttpResponse:
    """Daraja's queue gave up on a Reversal or B2C refund we asked for."""
    return _txn_status(request, token, Kind.REFUND_TIMEOUT, purpose=CallbackPurpose.REFUND)


def _txn_status(
    request: HttpRequest, token: str, kind: str, *, purpose: str = CallbackPurpose.TXN_STATUS
) -> HttpResponse:
    """Daraja's asynchronous Result shape: Transaction Status, Reversal and B2C alike."""
    tenant_id = _daraja_tenant(request, token, purpose)
    if isinstance(tenant_id, HttpResponse):
        return tenant_id
    raw = body_text(request)
    try:
        result = TxnStatusEnvelope.model_validate_json(raw).result
    except ValidationError:
        store_event(
            tenant_id, kind, raw, source_ip=client_ip(request), invalid="unparseable status result"
        )
        return JsonResponse(DARAJA_REFUSED, status=400)
    event = store_event(
        tenant_id,
        kind,
        raw,
        reference=result.originator_conversation_id,
        source_ip=client_ip(request),
    )
    refund = purpose == CallbackPurpose.REFUND
    task = tasks.process_refund_result if refund else tasks.process_status_result
    enqueue_after_commit(task, str(tenant_id), event.pk)
    return JsonResponse(DARAJA_OK)


@require_GET
def pesapal_return(request: HttpRequest, token: str) -> HttpResponse:
    """Where the customer's browser lands after checkout. Not proof of payment.

    It reads and changes nothing: its secret is seen by every card customer, so it
    authorises nothing. The IPN and GetTransactionStatus decide the payment.
    """
    if tenant_for_secret(token, CallbackPurpose.CARD_RETURN) is None:
        return HttpResponse(status=404)
    body = json.dumps({"message": card_return_text()})
    return HttpResponse(body, content_type="application/json")
