"""A local Daraja: OAuth, STK Push with scripted outcomes, STK Query, C2B register/simulate,
and Transaction Status with its asynchronous result.

It speaks the JSON of protocols.md §2 and checks what Safaricom checks (Basic auth,
bearer token, the STK password recipe, whole amounts, 2547… numbers, field lengths).
Outcomes are scripted per push: result code, delay, duplicated delivery, a lost
callback, or a different paid amount. STK Query can be made slow (it keeps saying
"being processed" for a while after the customer acted), and Transaction Status
answers later on the caller's ResultURL, or on its QueueTimeOutURL when scripted so.
"""

from __future__ import annotations

import base64
import secrets
import string
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

import httpx

from payments.emulators.daraja_refunds import RefundApis, RefundScript
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
    query_pending: int = 0  # this many queries after the customer acted still say "processing"


@dataclass(frozen=True)
class StatusScript:
    """How the next Transaction Status call is answered (on its ResultURL, later)."""

    delay: float = 0.0
    timeout: bool = False  # answer on the QueueTimeOutURL instead
    deliver: bool = True  # False: the result never arrives


@dataclass
class C2BPayment:
    """A Paybill/Till payment the emulated M-Pesa really recorded."""

    trans_id: str
    shortcode: str
    amount: str
    bill_ref: str


@dataclass
class StkPush:
    body: dict[str, Any]
    merchant_request_id: str
    checkout_request_id: str
    script: StkScript
    receipt: str = ""
    done: threading.Event = field(default_factory=threading.Event)
    done_at: float = 0.0
    queries: int = 0


def _code(n: int, alphabet: str = string.ascii_uppercase + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


class DarajaEmulator(RefundApis, EmulatorServer):
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
        # Seconds after the customer acted during which STK Query still says "processing".
        self.query_lag = 0.0
        self.c2b_payments: dict[str, C2BPayment] = {}
        self.initiators: dict[str, str] = {}  # initiator name → security credential
        self.status_scripts: deque[StatusScript] = deque()
        self.default_status_script = StatusScript()
        self.status_calls: list[dict[str, Any]] = []
        # Every verdict produced, as (URL, body): undelivered ones wait here for a test.
        self.status_results: list[tuple[str, dict[str, Any]]] = []
        self.route("GET", "/oauth/v1/generate", self._oauth)
        self.route("POST", "/mpesa/stkpush/v1/processrequest", self._stk_push)
        self.route("POST", "/mpesa/stkpushquery/v1/query", self._stk_query)
        self.route("POST", "/mpesa/c2b/v[12]/registerurl", self._register)
        self.route("POST", "/mpesa/transactionstatus/v1/query", self._transaction_status)
        # Refunds (payments/emulators/daraja_refunds.py).
        self.refund_scripts: list[RefundScript] = []
        self.refund_calls: list[dict[str, Any]] = []
        self.refund_results: list[tuple[str, dict[str, Any]]] = []
        # What M-Pesa did for each refund call (by its OriginatorConversationID), kept
        # whether or not the result reached the caller.
        self.refund_outcomes: dict[str, dict[str, Any]] = {}
        self.reversed_amounts: dict[str, Decimal] = {}
        self.route("POST", "/mpesa/reversal/v1/request", self._reversal)
        self.route("POST", "/mpesa/b2c/v3/paymentrequest", self._b2c)

    def add_app(self, consumer_key: str, consumer_secret: str) -> None:
        self.apps[consumer_key] = consumer_secret

    def receipt_amount(self, receipt: str) -> Decimal | None:
        """What M-Pesa recorded under a receipt (a completed STK push or a C2B payment)."""
        for push in self.pushes.values():
            if push.receipt == receipt and push.script.result_code == 0:
                return Decimal(str(push.script.paid_amount or push.body["Amount"]))
        payment = self.c2b_payments.get(receipt)
        return Decimal(payment.amount) if payment else None

    def script(self, **outcome: Any) -> None:
        self.scripts.append(StkScript(**outcome))

    def add_initiator(self, name: str, credential: str) -> None:
        self.initiators[name] = credential

    def script_status(self, **outcome: Any) -> None:
        self.status_scripts.append(StatusScript(**outcome))

    def record_push(self, checkout_id: str, result_code: int = 0) -> None:
        """A push the customer already answered, for callers that made the payment row
        themselves (benches): STK Query then answers `result_code` for it."""
        push = StkPush({}, "", checkout_id, StkScript(result_code=result_code))
        push.done_at = time.monotonic()
        push.done.set()
        self.pushes[checkout_id] = push

    def record_c2b(self, trans_id: str, shortcode: str, amount: str, bill_ref: str = "") -> None:
        """M-Pesa records a Paybill/Till payment (without calling anyone's URLs)."""
        self.c2b_payments[trans_id] = C2BPayment(trans_id, shortcode, amount, bill_ref)

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
            push.done_at = time.monotonic()
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
        push.queries += 1
        if not push.done.is_set() or self._still_processing(push):
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

    def _still_processing(self, push: StkPush) -> bool:
        """Daraja's query lags the callback: the first answers may still say processing."""
        if push.script.query_pending > 0:
            push.script = replace(push.script, query_pending=push.script.query_pending - 1)
            return True
        return time.monotonic() - push.done_at < self.query_lag

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
        trans_id = str(body["TransID"])
        self.c2b_payments[trans_id] = C2BPayment(trans_id, shortcode, amount, bill_ref)
        confirmed = httpx.post(urls["confirmation"], json={**body, "OrgAccountBalance": "25.00"})
        return {"validated": verdict, "confirmed": confirmed.json(), "body": body}

    # --- Transaction Status -------------------------------------------------------------
    def _transaction_status(self, request: Request) -> Reply:
        if not self._authorized(request):
            return _error(404, "404.001.03", "Invalid Access Token")
        body = request.json()
        missing = [
            k
            for k in (
                "Initiator",
                "SecurityCredential",
                "ResultURL",
                "QueueTimeOutURL",
                "PartyA",
            )
            if not body.get(k)
        ]
        # Daraja finds a transaction by its receipt or by the OriginatorConversationID
        # of the call that made it (a refund whose result never reached us).
        if not body.get("TransactionID") and not body.get("OriginalConversationID"):
            missing.append("TransactionID")
        if missing or body.get("CommandID") != "TransactionStatusQuery":
            return _error(
                400, "400.002.02", f"Bad Request - Invalid {(missing or ['CommandID'])[0]}"
            )
        self.status_calls.append(body)
        conversation_id = f"AG_{time.strftime('%Y%m%d')}_{_code(20, string.hexdigits.lower())}"
        originator = str(body.get("OriginatorConversationID") or _code(12))
        script = (
            self.status_scripts.popleft() if self.status_scripts else self.default_status_script
        )
        self._result_later(body, script, conversation_id, originator)
        return Reply(
            200,
            {
                "OriginatorConversationID": originator,
                "ConversationID": conversation_id,
                "ResponseCode": "0",
                "ResponseDescription": "Accept the service request successfully.",
            },
        )

    def _result_later(
        self, body: dict[str, Any], script: StatusScript, conversation_id: str, originator: str
    ) -> None:
        result = self.status_result(body, conversation_id, originator)
        url = body["QueueTimeOutURL"] if script.timeout else body["ResultURL"]
        if script.timeout:
            result["Result"].update(ResultCode=1, ResultDesc="The request timed out in the queue")
            result["Result"].pop("ResultParameters", None)
        self.status_results.append((url, result))
        if not script.deliver:
            return

        def run() -> None:
            time.sleep(script.delay)
            httpx.post(url, json=result, timeout=30)

        thread = threading.Thread(target=run, daemon=True)
        self.callback_threads.append(thread)
        thread.start()

    def status_result(
        self, body: dict[str, Any], conversation_id: str, originator: str
    ) -> dict[str, Any]:
        """What M-Pesa knows about the TransactionID, shaped as the Result callback."""
        if not body.get("TransactionID"):
            return self.refund_status(str(body["OriginalConversationID"]), conversation_id,
                                      originator)  # fmt: skip
        trans_id = str(body["TransactionID"])
        payment = self.c2b_payments.get(trans_id)
        result: dict[str, Any] = {
            "ResultType": 0,
            "OriginatorConversationID": originator,
            "ConversationID": conversation_id,
            "TransactionID": _code(10),
        }
        # With initiators registered, the credential must match; with none (demo, most
        # tests), any initiator is taken, like the sandbox's shared test initiator.
        known = self.initiators.get(str(body["Initiator"]), body["SecurityCredential"])
        if self.initiators and known != body["SecurityCredential"]:
            result.update(ResultCode=2001, ResultDesc="The initiator information is invalid.")
        elif payment is None or payment.shortcode != str(body["PartyA"]):
            result.update(ResultCode="R000001", ResultDesc="The transaction could not be found.")
        else:
            result.update(
                ResultCode=0,
                ResultDesc="The service request is processed successfully.",
                ResultParameters={"ResultParameter": _status_parameters(payment)},
            )
        return {"Result": result}


def _status_parameters(payment: C2BPayment) -> list[dict[str, Any]]:
    pairs: list[tuple[str, Any]] = [
        ("ReceiptNo", payment.trans_id),
        ("TransactionStatus", "Completed"),
        ("Amount", float(payment.amount)),
        ("CreditPartyName", f"{payment.shortcode} - Emulated Shop"),
        ("DebitPartyName", "254700***126 - JANE"),
        ("ReasonType", "Pay Bill Online"),
        ("FinalisedTime", int(time.strftime("%Y%m%d%H%M%S"))),
    ]
    return [{"Key": key, "Value": value} for key, value in pairs]


def _error(status: int, code: str, message: str) -> Reply:
    return Reply(status, {"requestId": _code(8), "errorCode": code, "errorMessage": message})
