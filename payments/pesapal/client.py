"""PesaPal API 3.0 client for one tenant's account (protocols.md §3)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

import httpx
from django.conf import settings
from pydantic import ValidationError

from payments.errors import ProviderError
from payments.hosts import PESAPAL_HOSTS, checked_base_url
from payments.http import provider_client
from payments.models import PesapalAccount
from payments.pesapal import schemas
from payments.tokens import cached_token, forget_token

HOSTS = PESAPAL_HOSTS
# The docs promise 5 minutes; the sandbox issued an hour. Trust the shorter.
TOKEN_TTL_SECONDS = 240

ResponseT = TypeVar("ResponseT", bound=schemas._Response)


@dataclass(frozen=True)
class CheckoutOrder:
    merchant_reference: str
    amount: Decimal
    currency: str
    description: str
    callback_url: str
    notification_id: str
    phone_number: str


class PesapalClient:
    def __init__(self, account: PesapalAccount, http: httpx.Client | None = None) -> None:
        self.account = account
        self.base_url = checked_base_url(
            account.base_url
            or getattr(settings, "PESAPAL_BASE_URL", "")
            or HOSTS[account.environment],
            HOSTS,
        )
        self._http = http or provider_client()

    def token(self) -> str:
        return cached_token(self.account.tenant_id, "pesapal", self._fetch_token)

    def _fetch_token(self) -> tuple[str, int]:
        secret = self.account.consumer_secret.reveal() if self.account.consumer_secret else ""
        body = {"consumer_key": self.account.consumer_key, "consumer_secret": secret}
        parsed = self._send("POST", "/api/Auth/RequestToken", schemas.TokenResponse, json=body)
        if not parsed.token:
            raise ProviderError("no_token", "RequestToken answered without a token")
        return parsed.token, TOKEN_TTL_SECONDS

    def register_ipn(self, url: str) -> schemas.RegisterIpnResponse:
        body = {"url": url, "ipn_notification_type": "POST"}
        return self._call("POST", "/api/URLSetup/RegisterIPN", schemas.RegisterIpnResponse, body)

    def submit_order(self, order: CheckoutOrder) -> schemas.SubmitOrderResponse:
        body = {
            "id": order.merchant_reference,
            "currency": order.currency,
            "amount": float(order.amount),
            "description": order.description[:100],
            "callback_url": order.callback_url,
            "redirect_mode": "TOP_WINDOW",
            "notification_id": order.notification_id,
            "billing_address": {"phone_number": order.phone_number, "country_code": "KE"},
        }
        path = "/api/Transactions/SubmitOrderRequest"
        return self._call("POST", path, schemas.SubmitOrderResponse, body)

    def transaction_status(self, order_tracking_id: str) -> schemas.TransactionStatus:
        """Not raised on a 500 body: a pending payment looks like an error here."""
        return self._send(
            "GET",
            "/api/Transactions/GetTransactionStatus",
            schemas.TransactionStatus,
            params={"orderTrackingId": order_tracking_id},
            bearer=True,
            lenient=True,
        )

    def refund_request(
        self, confirmation_code: str, amount: Decimal, username: str, remarks: str
    ) -> schemas.RefundResponse:
        """Ask PesaPal to refund (part of) a card payment, by its confirmation code."""
        body = {
            "confirmation_code": confirmation_code,
            "amount": str(amount),
            "username": username[:60],
            "remarks": remarks[:100] or "Refund",
        }
        return self._call("POST", "/api/Transactions/RefundRequest", schemas.RefundResponse, body)

    # --- plumbing -------------------------------------------------------------------
    def _call(
        self, method: str, path: str, model: type[ResponseT], body: dict[str, Any]
    ) -> ResponseT:
        return self._send(method, path, model, json=body, bearer=True)

    def _send(
        self,
        method: str,
        path: str,
        model: type[ResponseT],
        *,
        bearer: bool = False,
        lenient: bool = False,
        **kwargs: Any,
    ) -> ResponseT:
        for attempt in (1, 2):
            headers = {"Accept": "application/json"}
            if bearer:
                headers["Authorization"] = f"Bearer {self.token()}"
            try:
                response = self._http.request(
                    method, self.base_url + path, headers=headers, **kwargs
                )
            except httpx.HTTPError as exc:
                raise ProviderError("unreachable", str(exc), retryable=True) from exc
            if response.status_code == 401 and bearer and attempt == 1:
                forget_token(self.account.tenant_id, "pesapal")
                continue
            return self._parse(response, model, lenient=lenient)
        raise ProviderError("unauthorized", "token refused twice", retryable=True)

    @staticmethod
    def _parse(response: httpx.Response, model: type[ResponseT], *, lenient: bool) -> ResponseT:
        if response.is_server_error:
            # PesaPal reports its own errors (and a pending payment) as HTTP 200 with
            # "status": "500" in the body; a real 5xx is the service failing, whatever
            # its body says, and must never be read as an answer about the payment.
            raise ProviderError(
                f"http_{response.status_code}", "PesaPal is unavailable", retryable=True
            )
        try:
            parsed = model.model_validate(response.json())
        except (json.JSONDecodeError, ValidationError) as exc:
            raise ProviderError(
                f"http_{response.status_code}",
                "unexpected answer",
                retryable=response.is_server_error,
            ) from exc
        if not lenient and not parsed.ok:
            error = parsed.error or schemas.ApiErrorBody()
            raise ProviderError(error.code or f"status_{parsed.status}", error.message)
        return parsed
