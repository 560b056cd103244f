"""Daraja HTTP client for one tenant's account (protocols.md §2.1, 2.2, 2.4, 2.5).

Uses httpx against the account's base URL (the real Safaricom host by default; the
tests and the demo point it at `payments.emulators.daraja`).
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import httpx
from django.conf import settings
from pydantic import BaseModel, ValidationError

from payments.errors import ProviderError
from payments.hosts import DARAJA_HOSTS, checked_base_url
from payments.http import provider_client
from payments.models import MpesaAccount
from payments.mpesa import schemas
from payments.tokens import cached_token, forget_token

logger = logging.getLogger("tulia.payments.mpesa")

HOSTS = DARAJA_HOSTS
NAIROBI = ZoneInfo("Africa/Nairobi")
# Refresh well before Daraja's 3600 s lifetime (django-daraja uses 50 min).
TOKEN_MARGIN_SECONDS = 600
INVALID_TOKEN = "404.001.03"  # noqa: S105 - an error code, not a secret
STILL_PROCESSING = "500.001.1001"
_RETRYABLE_CODES = ("500.003.02", "500.003.1001", "500.001.1001")

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class StkPushOrder:
    amount: int
    msisdn: str
    account_reference: str
    description: str
    callback_url: str


def timestamp(now: datetime | None = None) -> str:
    """YYYYMMDDHHmmss in Kenyan time, as Daraja's clients send it."""
    return (now or datetime.now(tz=NAIROBI)).astimezone(NAIROBI).strftime("%Y%m%d%H%M%S")


def stk_password(shortcode: str, passkey: str, stamp: str) -> str:
    return base64.b64encode(f"{shortcode}{passkey}{stamp}".encode()).decode()


@dataclass(frozen=True)
class AsyncRefund:
    """What a Reversal or B2C call needs besides the money's destination."""

    amount: Decimal
    originator_id: str
    result_url: str
    timeout_url: str
    remarks: str


class DarajaClient:
    def __init__(self, account: MpesaAccount, http: httpx.Client | None = None) -> None:
        self.account = account
        self.base_url = checked_base_url(
            account.base_url
            or getattr(settings, "MPESA_BASE_URL", "")
            or HOSTS[account.environment],
            HOSTS,
        )
        self._http = http or provider_client()

    # --- OAuth ----------------------------------------------------------------------
    def token(self) -> str:
        return cached_token(self.account.tenant_id, "mpesa", self._fetch_token)

    def _fetch_token(self) -> tuple[str, int]:
        secret = self.account.consumer_secret.reveal() if self.account.consumer_secret else ""
        try:
            response = self._http.get(
                f"{self.base_url}/oauth/v1/generate",
                params={"grant_type": "client_credentials"},
                auth=(self.account.consumer_key, secret),
            )
        except httpx.HTTPError as exc:
            raise ProviderError("unreachable", str(exc), retryable=True) from exc
        parsed = self._parse(response, schemas.TokenResponse)
        return parsed.access_token, max(parsed.expires_in - TOKEN_MARGIN_SECONDS, 60)

    # --- API calls ------------------------------------------------------------------
    def stk_push(self, order: StkPushOrder) -> schemas.StkPushAccepted:
        stamp = timestamp()
        body = {
            "BusinessShortCode": self.account.shortcode,
            "Password": self._password(stamp),
            "Timestamp": stamp,
            "TransactionType": "CustomerBuyGoodsOnline"
            if self.account.kind == MpesaAccount.Kind.TILL
            else "CustomerPayBillOnline",
            "Amount": order.amount,
            "PartyA": order.msisdn,
            "PartyB": self.account.party_b,
            "PhoneNumber": order.msisdn,
            "CallBackURL": order.callback_url,
            "AccountReference": order.account_reference,
            "TransactionDesc": order.description,
        }
        return self._post("/mpesa/stkpush/v1/processrequest", body, schemas.StkPushAccepted)

    def stk_query(self, checkout_request_id: str) -> schemas.StkQueryResponse | None:
        """The query result, or None while the customer has not answered yet."""
        stamp = timestamp()
        body = {
            "BusinessShortCode": self.account.shortcode,
            "Password": self._password(stamp),
            "Timestamp": stamp,
            "CheckoutRequestID": checkout_request_id,
        }
        try:
            return self._post("/mpesa/stkpushquery/v1/query", body, schemas.StkQueryResponse)
        except ProviderError as exc:
            if exc.code == STILL_PROCESSING:
                return None
            raise

    def register_c2b_urls(
        self, confirmation_url: str, validation_url: str, *, response_type: str = "Completed"
    ) -> schemas.C2BRegisterResponse:
        body = {
            "ShortCode": self.account.shortcode,
            "ResponseType": response_type,
            "ConfirmationURL": confirmation_url,
            "ValidationURL": validation_url,
        }
        return self._post("/mpesa/c2b/v2/registerurl", body, schemas.C2BRegisterResponse)

    def transaction_status(
        self,
        trans_id: str,
        originator_id: str,
        result_url: str,
        timeout_url: str,
        *,
        original_id: str = "",
    ) -> schemas.TxnStatusAccepted:
        """Ask M-Pesa about a receipt, or (no receipt) about the transaction our call
        `original_id` started; the verdict is posted to `result_url` later."""
        credential = self.account.security_credential
        body = {
            "Initiator": self.account.initiator_name,
            "SecurityCredential": credential.reveal() if credential else "",
            "CommandID": "TransactionStatusQuery",
            "TransactionID": trans_id,
            **({"OriginalConversationID": original_id} if original_id else {}),
            "OriginatorConversationID": originator_id,
            "PartyA": self.account.shortcode,
            "IdentifierType": "4",
            "ResultURL": result_url,
            "QueueTimeOutURL": timeout_url,
            "Remarks": "Payment check",
            "Occasion": "",
        }
        path = "/mpesa/transactionstatus/v1/query"
        return self._post(path, body, schemas.TxnStatusAccepted)

    def reversal(self, refund: AsyncRefund, trans_id: str) -> schemas.TxnStatusAccepted:
        """Reverse (part of) an M-Pesa receipt; the result is posted to the ResultURL."""
        body = {
            **self._initiator(refund),
            "CommandID": "TransactionReversal",
            "TransactionID": trans_id,
            "Amount": str(refund.amount.quantize(Decimal(1))),  # M-Pesa moves whole shillings
            "ReceiverParty": self.account.shortcode,
            "RecieverIdentifierType": "11",  # sic: Daraja's spelling
        }
        return self._post("/mpesa/reversal/v1/request", body, schemas.TxnStatusAccepted)

    def b2c(self, refund: AsyncRefund, phone: str) -> schemas.TxnStatusAccepted:
        """Send money from the B2C shortcode to the phone that paid (result posted later)."""
        body = {
            **self._initiator(refund, key="InitiatorName"),
            "CommandID": "BusinessPayment",
            "Amount": str(refund.amount.quantize(Decimal(1))),  # M-Pesa moves whole shillings
            "PartyA": self.account.b2c_shortcode,
            "PartyB": phone.lstrip("+"),
        }
        return self._post("/mpesa/b2c/v3/paymentrequest", body, schemas.TxnStatusAccepted)

    def _initiator(self, refund: AsyncRefund, key: str = "Initiator") -> dict[str, str]:
        credential = self.account.security_credential
        return {
            key: self.account.initiator_name,
            "SecurityCredential": credential.reveal() if credential else "",
            "OriginatorConversationID": refund.originator_id,
            "ResultURL": refund.result_url,
            "QueueTimeOutURL": refund.timeout_url,
            "Remarks": refund.remarks[:100] or "Refund",
            "Occasion": "",
        }

    # --- plumbing -------------------------------------------------------------------
    def _password(self, stamp: str) -> str:
        passkey = self.account.passkey.reveal() if self.account.passkey else ""
        return stk_password(self.account.shortcode, passkey, stamp)

    def _post(self, path: str, body: dict[str, Any], model: type[ModelT]) -> ModelT:
        """POST with the cached token; on an invalid-token answer refresh once and retry."""
        for attempt in (1, 2):
            try:
                response = self._http.post(
                    self.base_url + path,
                    json=body,
                    headers={"Authorization": f"Bearer {self.token()}"},
                )
                return self._parse(response, model)
            except ProviderError as exc:
                if exc.code != INVALID_TOKEN or attempt == 2:
                    raise
                forget_token(self.account.tenant_id, "mpesa")
            except httpx.HTTPError as exc:
                raise ProviderError("unreachable", str(exc), retryable=True) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _parse(response: httpx.Response, model: type[ModelT]) -> ModelT:
        try:
            data = response.json()
        except json.JSONDecodeError as exc:
            raise ProviderError(
                f"http_{response.status_code}",
                "non-JSON answer",
                retryable=response.is_server_error,
            ) from exc
        if isinstance(data, dict) and "errorCode" in data:
            error = schemas.ApiError.model_validate(data)
            retryable = error.error_code in _RETRYABLE_CODES
            raise ProviderError(error.error_code, error.error_message, retryable=retryable)
        if response.is_error:
            raise ProviderError(
                f"http_{response.status_code}",
                response.text[:200],
                retryable=response.is_server_error,
            )
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise ProviderError("bad_response", str(exc)[:200], retryable=False) from exc
