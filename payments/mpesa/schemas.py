"""Typed Daraja payloads (protocols.md §2), parsed strictly where we rely on a field.

Unknown extra keys are ignored (Safaricom adds fields over time); the keys we act on
are required and typed. Callback metadata is read by item name, never by position.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import Field, field_validator

from payments.payload import ProviderPayload

MSISDN_RE = re.compile(r"^254[17]\d{8}$")


# --- OAuth and synchronous API answers ------------------------------------------------
class TokenResponse(ProviderPayload):
    access_token: str = Field(min_length=1)
    # The doc shows a number; some deployments send a string. int() accepts both.
    expires_in: int

    @field_validator("expires_in", mode="before")
    @classmethod
    def _to_int(cls, value: Any) -> int:
        return int(value)


class ApiError(ProviderPayload):
    request_id: str = Field("", alias="requestId")
    error_code: str = Field(alias="errorCode")
    error_message: str = Field("", alias="errorMessage")


class StkPushAccepted(ProviderPayload):
    merchant_request_id: str = Field(alias="MerchantRequestID")
    checkout_request_id: str = Field(alias="CheckoutRequestID", min_length=1)
    response_code: str = Field(alias="ResponseCode")
    response_description: str = Field("", alias="ResponseDescription")
    customer_message: str = Field("", alias="CustomerMessage")


class StkQueryResponse(ProviderPayload):
    response_code: str = Field(alias="ResponseCode")
    merchant_request_id: str = Field("", alias="MerchantRequestID")
    checkout_request_id: str = Field(alias="CheckoutRequestID")
    # A string here, unlike the callback's integer.
    result_code: str = Field(alias="ResultCode")
    result_desc: str = Field("", alias="ResultDesc")

    @field_validator("result_code", "response_code", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> str:
        return str(value)


class C2BRegisterResponse(ProviderPayload):
    # Upstream spells it "Coversation".
    originator_conversation_id: str = Field("", alias="OriginatorCoversationID")
    response_code: str = Field(alias="ResponseCode")
    response_description: str = Field("", alias="ResponseDescription")


# --- STK callback ---------------------------------------------------------------------
class MetadataItem(ProviderPayload):
    name: str = Field(alias="Name")
    # `Balance` sometimes arrives with no Value at all.
    value: Any = Field(None, alias="Value")


class CallbackMetadata(ProviderPayload):
    items: list[MetadataItem] = Field(default_factory=list, alias="Item")


class StkCallback(ProviderPayload):
    merchant_request_id: str = Field(alias="MerchantRequestID")
    checkout_request_id: str = Field(alias="CheckoutRequestID", min_length=1, max_length=80)
    result_code: int = Field(alias="ResultCode")
    result_desc: str = Field("", alias="ResultDesc")
    metadata: CallbackMetadata | None = Field(None, alias="CallbackMetadata")

    def item(self, name: str) -> Any:
        if self.metadata is None:
            return None
        return next((i.value for i in self.metadata.items if i.name == name), None)

    @property
    def amount(self) -> Decimal | None:
        return _decimal(self.item("Amount"))

    @property
    def receipt(self) -> str:
        return str(self.item("MpesaReceiptNumber") or "")

    @property
    def phone(self) -> str:
        value = self.item("PhoneNumber")
        return "" if value is None else str(value)


class _StkBody(ProviderPayload):
    stk_callback: StkCallback = Field(alias="stkCallback")


class StkCallbackEnvelope(ProviderPayload):
    body: _StkBody = Field(alias="Body")

    @property
    def callback(self) -> StkCallback:
        return self.body.stk_callback


# --- C2B validation / confirmation ----------------------------------------------------
class C2BTransaction(ProviderPayload):
    transaction_type: str = Field("", alias="TransactionType")
    trans_id: str = Field(alias="TransID", min_length=1, max_length=40)
    trans_time: str = Field("", alias="TransTime")
    trans_amount: Decimal = Field(alias="TransAmount")
    business_short_code: str = Field("", alias="BusinessShortCode")
    bill_ref_number: str = Field("", alias="BillRefNumber")
    third_party_trans_id: str = Field("", alias="ThirdPartyTransID")
    # Masked or hashed these days: kept for the record, never used to identify anyone.
    msisdn: str = Field("", alias="MSISDN")
    first_name: str = Field("", alias="FirstName")

    @field_validator("business_short_code", "bill_ref_number", "msisdn", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @property
    def account_reference(self) -> str:
        """BillRefNumber is typed by the payer: normalise case and spaces."""
        return "".join(self.bill_ref_number.split()).upper()


def _decimal(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


# --- Transaction Status (asynchronous: acknowledged now, verdict on the ResultURL) ------
class TxnStatusAccepted(ProviderPayload):
    originator_conversation_id: str = Field("", alias="OriginatorConversationID")
    conversation_id: str = Field(alias="ConversationID", min_length=1)
    response_code: str = Field(alias="ResponseCode")
    response_description: str = Field("", alias="ResponseDescription")

    @field_validator("response_code", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> str:
        return str(value)


class ResultParameter(ProviderPayload):
    key: str = Field(alias="Key")
    value: Any = Field(None, alias="Value")


class _ResultParameters(ProviderPayload):
    # One parameter may arrive as a bare object rather than a list of one.
    items: list[ResultParameter] = Field(default_factory=list, alias="ResultParameter")

    @field_validator("items", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value


class TxnStatusResult(ProviderPayload):
    result_type: int | str = Field(0, alias="ResultType")
    result_code: str = Field(alias="ResultCode")
    result_desc: str = Field("", alias="ResultDesc")
    originator_conversation_id: str = Field(alias="OriginatorConversationID", max_length=64)
    conversation_id: str = Field(alias="ConversationID", max_length=64)
    transaction_id: str = Field("", alias="TransactionID", max_length=64)
    parameters: _ResultParameters | None = Field(None, alias="ResultParameters")

    @field_validator("result_code", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> str:
        return str(value)

    def param(self, key: str) -> Any:
        if self.parameters is None:
            return None
        return next((p.value for p in self.parameters.items if p.key == key), None)

    @property
    def receipt(self) -> str:
        return str(self.param("ReceiptNo") or "")

    @property
    def amount(self) -> Decimal | None:
        return _decimal(self.param("Amount"))

    @property
    def completed(self) -> bool:
        return self.result_code == "0" and str(self.param("TransactionStatus")) == "Completed"


class TxnStatusEnvelope(ProviderPayload):
    result: TxnStatusResult = Field(alias="Result")
