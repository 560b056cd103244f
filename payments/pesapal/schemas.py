"""Typed PesaPal API 3.0 payloads (protocols.md §3).

PesaPal reports errors inside HTTP 200 bodies (`"status": "500"` plus an `error`
object), so every response carries `status` and `error` and callers check them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import Field, field_validator, model_validator

from payments.payload import ProviderPayload


class ApiErrorBody(ProviderPayload):
    # The docs say error_type, some responses say type.
    error_type: str = Field("", validation_alias="error_type")
    code: str = ""
    message: str = ""

    @model_validator(mode="before")
    @classmethod
    def _either_type_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "error_type" not in data and "type" in data:
            return {**data, "error_type": data["type"]}
        return data


class _Response(ProviderPayload):
    status: str = ""
    error: ApiErrorBody | None = None

    @field_validator("status", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @property
    def ok(self) -> bool:
        return self.status == "200" and self.error is None


class RefundResponse(_Response):
    """RefundRequest's answer: status "200" means PesaPal took the refund request."""

    message: str | None = None


class TokenResponse(_Response):
    token: str | None = None
    expiry_date: str | None = Field(None, alias="expiryDate")
    message: str | None = None


class RegisterIpnResponse(_Response):
    ipn_id: str | None = None
    url: str | None = None
    notification_type: int | None = None


class SubmitOrderResponse(_Response):
    order_tracking_id: str | None = None
    merchant_reference: str | None = None
    redirect_url: str | None = None


class TransactionStatus(_Response):
    payment_method: str | None = ""
    amount: Decimal | None = None
    confirmation_code: str | None = ""
    order_tracking_id: str | None = ""
    payment_status_description: str | None = ""
    payment_account: str | None = ""
    status_code: int | None = None
    merchant_reference: str | None = ""
    currency: str | None = ""

    @field_validator("status_code", mode="before")
    @classmethod
    def _code(cls, value: Any) -> int | None:
        return None if value in (None, "") else int(value)


class IpnNotification(ProviderPayload):
    """The IPN carries ids only; status always comes from GetTransactionStatus."""

    order_tracking_id: str = Field(min_length=1, max_length=80)
    merchant_reference: str = Field("", max_length=80)
    notification_type: str = ""

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> IpnNotification:
        # Keys arrive as OrderTrackingId or orderTrackingId: compare case-insensitively.
        lowered = {str(key).lower(): value for key, value in data.items()}
        return cls(
            order_tracking_id=str(lowered.get("ordertrackingid") or ""),
            merchant_reference=str(lowered.get("ordermerchantreference") or ""),
            notification_type=str(lowered.get("ordernotificationtype") or ""),
        )

    def acknowledgement(self, status: int) -> dict[str, Any]:
        return {
            "orderNotificationType": self.notification_type or "IPNCHANGE",
            "orderTrackingId": self.order_tracking_id,
            "orderMerchantReference": self.merchant_reference,
            "status": status,
        }
