"""A local Daraja: OAuth, STK Push with scripted outcomes, STK Query, C2B register/simulate.

It speaks the JSON of protocols.md §2 and checks what Safaricom checks (Basic auth,
bearer token, the STK password recipe, whole amounts, 2547… numbers, field lengths).
Outcomes are scripted per push: result code, delay, duplicated delivery, a lost
callback, or a different paid amount.
"""

from __future__ import annotations

import base64
import secrets
import string
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import httpx

from payments.emulators.server import EmulatorServer, Reply, Request
from payments.mpesa.schemas import MSISDN_RE

DESCRIPTIONS = {
    0: "The service request is processed successfully.",
    1: "The balance is insufficient for the transaction.",
    1032: "Request cancelled by user",
    1037: "DS timeout user cannot be reached",
    2001: "The initiator information is invalid.",
}


@dataclass(frozen=True)
class StkScript:
    """What the customer does with the next prompt."""

    result_code: int = 0
    delay: float = 0.0
    deliveries: int = 1  # >1 delivers the same callback again (Daraja duplicates)
    deliver: bool = True  # False: the customer acts but the callback is lost
    answered: bool = True  # False: the customer never acts; queries say "processing"
    paid_amount: float | None = None  # report a different amount than requested


@dataclass
class StkPush:
    body: dict[str, Any]
    merchant_request_id: str
    checkout_request_id: str
    script: StkScript
    receipt: str = ""
    done: threading.Event = field(default_factory=threading.Event)


def _code(n: int, alphabet: str = string.ascii_uppercase + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


class DarajaEmulator(EmulatorServer):
    def __init__(
        self, consumer_key: str, consumer_secret: str, passkey: str, *, port: int = 0
    ) -> None:
        super().__init__(port=port)
        self.passkey = passkey
        self.apps: dict[str, str] = {consumer_key: consumer_secret}
        self.tokens: dict[str, str] = {}  # consumer key → its one valid token
        self.tokens_issued = 0
        self.scripts: deque[StkScript] = deque()
        self.default_script = StkScript()  # when no outcome is scripted for a push
        self.pushes: dict[str, StkPush] = {}
        self.c2b_urls: dict[str, dict[str, str]] = {}
        self.callback_threads: list[threading.Thread] = []
        self.route("GET", "/oauth/v1/generate", self._oauth)
        self.route("POST", "/mpesa/stkpush/v1/processrequest", self._stk_push)
        self.route("POST", "/mpesa/stkpushquery/v1/query", self._stk_query)
        self.route("POST", "/mpesa/c2b/v[12]/registerurl", self._register)

    def add_app(self, consumer_key: str, consumer_secret: str) -> None:
        self.apps[consumer_key] = consumer_secret

    def script(self, **outcome: Any) -> None:
        self.scripts.append(StkScript(**outcome))

    def wait_for_callbacks(self, timeout: float = 10.0) -> None:
        for thread in list(self.callback_threads):
            thread.join(timeout)

    # --- OAuth ----------------------------------------------------------------------
    def _oauth(self, request: Request) -> Reply:
        if request.query.get("grant_type") != "client_credentials":
            return Reply(400, {"errorCode": "400.008.02", "errorMessage": "Invalid grant type"})
        key = self._basic_auth_key(request.headers.get("authorization", ""))
        if key is None:
            return Reply(400, {"errorCode": "400.008.01", "errorMessage": "Invalid Authentication"})
        # Each new token invalidates the app's previous one, as the Daraja FAQ says.
        token = _code(28, string.ascii_letters + string.digits)
        self.tokens[key] = token
        self.tokens_issued += 1
        return Reply(200, {"access_token": token, "expires_in": "3599"})

    def _basic_auth_key(self, header: str) -> str | None:
        try:
            key, _, secret = base64.b64decode(header.removeprefix("Basic ")).decode().partition(":")
        except ValueError:
            return None
        ok = header.startswith("Basic ") and key in self.apps and self.apps[key] == secret
        return key if ok else None

    def _authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        return header.startswith("Bearer ") and header[7:] in self.tokens.values()

    # --- STK ------------------------------------------------------------------------
    def _stk_push(self, request: Request) -> Reply:
        if not self._authorized(request):
            return _error(404, "404.001.03", "Invalid Access Token")
        body = request.json()
        problem = self._invalid_push(body)
        if problem:
            return _error(400, "400.002.02", f"Bad Request - Invalid {problem}")
        push = StkPush(
            body=body,
            merchant_request_id=f"{_code(5, string.digits)}-{_code(8, string.digits)}-1",
            checkout_request_id=f"ws_CO_{time.strftime('%d%m%Y%H%M%S')}{_code(10, string.digits)}",
            script=self.scripts.popleft() if self.scripts else self.default_script,
        )
        self.pushes[push.checkout_request_id] = push
        if push.script.answered:
            self._answer_later(push)
        return Reply(
            200,
            {
                "MerchantRequestID": push.merchant_request_id,
                "CheckoutRequestID": push.checkout_request_id,
                "ResponseCode": "0",
                "ResponseDescription": "Success. Request accepted for processing",
                "CustomerMessage": "Success. Request accepted for processing",
            },
        )

    def _invalid_push(self, body: dict[str, Any]) -> str:
        stamp = str(body.get("Timestamp", ""))
        password = base64.b64encode(
            f"{body.get('BusinessShortCode')}{self.passkey}{stamp}".encode()
        ).decode()
        checks = {
            "Password": body.get("Password") == password and len(stamp) == 14,
            "Amount": isinstance(body.get("Amount"), int) and body["Amount"] >= 1,
            "PhoneNumber": bool(MSISDN_RE.match(str(body.get("PhoneNumber", "")))),
            "AccountReference": 0 < len(str(body.get("AccountReference", ""))) <= 12,
            "TransactionDesc": len(str(body.get("TransactionDesc", ""))) <= 13,
            "CallBackURL": str(body.get("CallBackURL", "")).startswith(("http://", "https://")),
            "TransactionType": body.get("TransactionType")
            in ("CustomerPayBillOnline", "CustomerBuyGoodsOnline"),
        }
        return next((name for name, ok in checks.items() if not ok), "")

    def _answer_later(self, push: StkPush) -> None:
        def run() -> None:
            time.sleep(push.script.delay)
            if push.script.result_code == 0:
                push.receipt = _code(10)
            push.done.set()
            for _ in range(push.script.deliveries if push.script.deliver else 0):
                self.deliver(push)

        thread = threading.Thread(target=run, daemon=True)
        self.callback_threads.append(thread)
        thread.start()

    def callback_body(self, push: StkPush) -> dict[str, Any]:
        code = push.script.result_code
        callback: dict[str, Any] = {
            "MerchantRequestID": push.merchant_request_id,
            "CheckoutRequestID": push.checkout_request_id,
            "ResultCode": code,
            "ResultDesc": DESCRIPTIONS.get(code, "Error"),
        }
        if code == 0:
            amount = push.script.paid_amount or float(push.body["Amount"])
            callback["CallbackMetadata"] = {
                "Item": [
                    {"Name": "Amount", "Value": amount},
                    {"Name": "MpesaReceiptNumber", "Value": push.receipt},
                    {"Name": "Balance"},
                    {"Name": "TransactionDate", "Value": int(time.strftime("%Y%m%d%H%M%S"))},
                    {"Name": "PhoneNumber", "Value": int(push.body["PhoneNumber"])},
                ]
            }
        return {"Body": {"stkCallback": callback}}

    def deliver(self, push: StkPush) -> int:
        """POST the callback to the push's CallBackURL; returns our server's status."""
        response = httpx.post(push.body["CallBackURL"], json=self.callback_body(push), timeout=30)
        return response.status_code

    def _stk_query(self, request: Request) -> Reply:
        if not self._authorized(request):
            return _error(404, "404.001.03", "Invalid Access Token")
        body = request.json()
        push = self.pushes.get(str(body.get("CheckoutRequestID")))
        if push is None:
            return _error(400, "400.002.02", "Bad Request - Invalid CheckoutRequestID")
        if not push.done.is_set():
            return _error(500, "500.001.1001", "The transaction is being processed")
        code = push.script.result_code
        return Reply(
            200,
            {
                "ResponseCode": "0",
                "ResponseDescription": "The service request has been accepted successsfully",
                "MerchantRequestID": push.merchant_request_id,
                "CheckoutRequestID": push.checkout_request_id,
                "ResultCode": str(code),
                "ResultDesc": DESCRIPTIONS.get(code, "Error"),
            },
        )

    # --- C2B ------------------------------------------------------------------------
    def _register(self, request: Request) -> Reply:
        if not self._authorized(request):
            return _error(400, "400.003.01", "Invalid Access Token")
        body = request.json()
        if body.get("ResponseType") not in ("Completed", "Cancelled"):
            return _error(400, "400.003.02", "Bad Request - Invalid ResponseType")
        self.c2b_urls[str(body.get("ShortCode"))] = {
            "confirmation": body["ConfirmationURL"],
            "validation": body["ValidationURL"],
        }
        return Reply(
            200,
            {
                "OriginatorCoversationID": f"{_code(4, string.digits)}-{_code(8)}",
                "ResponseCode": "0",
                "ResponseDescription": "Success",
            },
        )

    def simulate_c2b(
        self, shortcode: str, amount: str, bill_ref: str, *, trans_id: str = ""
    ) -> dict[str, Any]:
        """A customer pays the Paybill: validation first, then confirmation if accepted."""
        urls = self.c2b_urls[shortcode]
        body = {
            "TransactionType": "Pay Bill",
            "TransID": trans_id or _code(10),
            "TransTime": time.strftime("%Y%m%d%H%M%S"),
            "TransAmount": amount,
            "BusinessShortCode": shortcode,
            "BillRefNumber": bill_ref,
            "InvoiceNumber": "",
            "OrgAccountBalance": "",
            "ThirdPartyTransID": "",
            "MSISDN": "2547 ***** 126",
            "FirstName": "JANE",
            "MiddleName": "",
            "LastName": "",
        }
        verdict = httpx.post(urls["validation"], json=body, timeout=8).json()
        if str(verdict.get("ResultCode")) != "0":
            return {"validated": verdict, "confirmed": None, "body": body}
        confirmed = httpx.post(urls["confirmation"], json={**body, "OrgAccountBalance": "25.00"})
        return {"validated": verdict, "confirmed": confirmed.json(), "body": body}


def _error(status: int, code: str, message: str) -> Reply:
    return Reply(status, {"requestId": _code(8), "errorCode": code, "errorMessage": message})
