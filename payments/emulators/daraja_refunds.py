"""Daraja's refund APIs as the emulator answers them: Reversal and B2C.

Both are asynchronous like Transaction Status: the call is acknowledged with a
ConversationID and the result is POSTed later to the caller's ResultURL (or its
QueueTimeOutURL). A reversal succeeds only for a receipt the emulated M-Pesa recorded
(an STK push or a C2B payment), for no more than is left of it; B2C pays any phone.
"""

from __future__ import annotations

import string
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

import httpx

from payments.emulators.server import Reply, Request

REVERSAL_FIELDS = ("Initiator", "SecurityCredential", "TransactionID", "Amount", "ResultURL",
                   "QueueTimeOutURL", "ReceiverParty")  # fmt: skip
B2C_FIELDS = ("InitiatorName", "SecurityCredential", "Amount", "PartyA", "PartyB", "ResultURL",
              "QueueTimeOutURL")  # fmt: skip


@dataclass(frozen=True)
class RefundScript:
    """How the next Reversal/B2C call is answered."""

    result_code: int = 0
    timeout: bool = False  # answer on the QueueTimeOutURL instead
    deliver: bool = True  # False: kept in `refund_results` for a test to deliver


class _Emulator(Protocol):
    refund_scripts: list[RefundScript]
    refund_calls: list[dict[str, Any]]
    refund_results: list[tuple[str, dict[str, Any]]]
    refund_outcomes: dict[str, dict[str, Any]]
    reversed_amounts: dict[str, Decimal]
    callback_threads: list[threading.Thread]

    def _authorized(self, request: Request) -> bool: ...
    def receipt_amount(self, receipt: str) -> Decimal | None: ...


def _code(n: int, alphabet: str = string.ascii_uppercase + string.digits) -> str:
    import secrets

    return "".join(secrets.choice(alphabet) for _ in range(n))


def _error(status: int, code: str, message: str) -> Reply:
    return Reply(status, {"requestId": _code(8), "errorCode": code, "errorMessage": message})


class RefundApis:
    """Mixed into DarajaEmulator: the two routes and their later results."""

    def _reversal(self: _Emulator, request: Request) -> Reply:
        return RefundApis._accept(self, request, REVERSAL_FIELDS, "TransactionReversal")

    def _b2c(self: _Emulator, request: Request) -> Reply:
        return RefundApis._accept(self, request, B2C_FIELDS, "BusinessPayment")

    @staticmethod
    def _accept(
        emulator: _Emulator, request: Request, fields: tuple[str, ...], command: str
    ) -> Reply:
        if not emulator._authorized(request):
            return _error(404, "404.001.03", "Invalid Access Token")
        body = request.json()
        missing = [k for k in fields if not body.get(k)]
        if missing or body.get("CommandID") != command:
            return _error(
                400, "400.002.02", f"Bad Request - Invalid {(missing or ['CommandID'])[0]}"
            )
        emulator.refund_calls.append(body)
        conversation_id = f"AG_{time.strftime('%Y%m%d')}_{_code(20, string.hexdigits.lower())}"
        originator = str(body.get("OriginatorConversationID") or _code(12))
        script = emulator.refund_scripts.pop(0) if emulator.refund_scripts else RefundScript()
        result = RefundApis.result(emulator, body, script, conversation_id, originator)
        url = body["QueueTimeOutURL"] if script.timeout else body["ResultURL"]
        emulator.refund_results.append((url, result))
        emulator.refund_outcomes[originator] = result["Result"]
        if script.deliver:
            thread = threading.Thread(
                target=lambda: httpx.post(url, json=result, timeout=30), daemon=True
            )
            emulator.callback_threads.append(thread)
            thread.start()
        return Reply(200, {
            "OriginatorConversationID": originator,
            "ConversationID": conversation_id,
            "ResponseCode": "0",
            "ResponseDescription": "Accept the service request successfully.",
        })  # fmt: skip

    @staticmethod
    def result(
        emulator: _Emulator,
        body: dict[str, Any],
        script: RefundScript,
        conversation_id: str,
        originator: str,
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "ResultType": 0,
            "OriginatorConversationID": originator,
            "ConversationID": conversation_id,
            "TransactionID": _code(10),
        }
        code: int | str = script.result_code
        desc = "The service request is processed successfully."
        if script.timeout:
            code, desc = 1, "The request timed out in the queue"
        elif code == 0 and body.get("CommandID") == "TransactionReversal":
            code, desc = RefundApis._reverse(emulator, str(body["TransactionID"]), body["Amount"])
        elif code != 0:
            desc = "The transaction could not be completed."
        result.update(ResultCode=code, ResultDesc=desc)
        return {"Result": result}

    def refund_status(
        self: _Emulator, original_id: str, conversation_id: str, originator: str
    ) -> dict[str, Any]:
        """Transaction Status of a Reversal/B2C by the OriginatorConversationID of its call.

        Found and paid: Completed with its receipt; found and refused: the same shape
        with TransactionStatus "Failed" (an assumption: Daraja documents no sample for
        it); never asked: "could not be found"."""
        result: dict[str, Any] = {
            "ResultType": 0,
            "OriginatorConversationID": originator,
            "ConversationID": conversation_id,
            "TransactionID": _code(10),
        }
        done = self.refund_outcomes.get(original_id)
        if done is None:
            result.update(ResultCode="R000001", ResultDesc="The transaction could not be found.")
            return {"Result": result}
        paid = str(done["ResultCode"]) == "0"
        pairs = [
            ("ReceiptNo", done["TransactionID"]),
            ("TransactionStatus", "Completed" if paid else "Failed"),
        ]
        result.update(
            ResultCode=0,
            ResultDesc="The service request is processed successfully.",
            ResultParameters={"ResultParameter": [{"Key": k, "Value": v} for k, v in pairs]},
        )
        return {"Result": result}

    @staticmethod
    def _reverse(emulator: _Emulator, receipt: str, amount: object) -> tuple[int | str, str]:
        paid = emulator.receipt_amount(receipt)
        wanted = Decimal(str(amount))
        if paid is None:
            return "R000002", "The OriginalTransactionID is invalid."
        done = emulator.reversed_amounts.get(receipt, Decimal(0))
        if wanted <= 0 or done + wanted > paid:
            return "R000001", "The transaction has already been reversed."
        emulator.reversed_amounts[receipt] = done + wanted
        return 0, "The service request is processed successfully."
