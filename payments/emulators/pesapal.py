"""A local PesaPal API 3.0: token, IPN registration, orders, a hosted page, IPN, status.

Responses follow the recorded sandbox shapes of protocols.md §3, including errors as
HTTP 200 bodies with `"status": "500"` and the pending order that reports INVALID
with `payment_details_not_found`.

RefundRequest only accepts a refund; PesaPal decides it later. A completed refund
turns the transaction's GetTransactionStatus into 3 (REVERSED) and PesaPal sends an
IPN; a refund PesaPal turns down leaves the transaction COMPLETED (1) and sends
nothing (our assumption: nothing is documented about refunds in the status answer).
`refund_default` (or `refund_plan`, next refund first) says which happens: "hold"
(a test calls `complete_refund`/`fail_refund`), "complete" or "fail" at once.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from payments.emulators.server import EmulatorServer, Reply, Request

STATUS_WORDS = {0: "INVALID", 1: "COMPLETED", 2: "FAILED", 3: "REVERSED"}


@dataclass
class Checkout:
    body: dict[str, Any]
    tracking_id: str
    status_code: int = 0
    confirmation_code: str = ""
    paid_amount: float | None = None


def _now() -> str:
    return datetime.now(tz=UTC).isoformat().replace("+00:00", "Z")


def _failure(code: str, message: str) -> Reply:
    error = {"error_type": "api_error", "code": code, "message": message}
    return Reply(200, {"error": error, "status": "500"})


class PesapalEmulator(EmulatorServer):
    def __init__(self, consumer_key: str, consumer_secret: str, *, port: int = 0) -> None:
        super().__init__(port=port)
        self.apps: dict[str, str] = {consumer_key: consumer_secret}
        self.tokens: set[str] = set()
        self.ipns: dict[str, dict[str, str]] = {}
        self.checkouts: dict[str, Checkout] = {}
        self.ipn_replies: list[dict[str, Any]] = []
        self.route("POST", "/api/Auth/RequestToken", self._token)
        self.route("POST", "/api/URLSetup/RegisterIPN", self._register_ipn)
        self.route("GET", "/api/URLSetup/GetIpnList", self._ipn_list)
        self.route("POST", "/api/Transactions/SubmitOrderRequest", self._submit)
        self.route("GET", "/api/Transactions/GetTransactionStatus", self._status)
        self.route("POST", "/api/Transactions/RefundRequest", self._refund)
        self.refunds: list[dict[str, Any]] = []
        self.refund_plan: list[str] = []
        self.refund_default = "hold"
        self.route("GET", "/iframe/PesapalIframe3/Index", self._page)
        self.route("POST", "/iframe/PesapalIframe3/Pay", self._pay_form)

    def add_app(self, consumer_key: str, consumer_secret: str) -> None:
        self.apps[consumer_key] = consumer_secret

    def _authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        return header.startswith("Bearer ") and header.removeprefix("Bearer ") in self.tokens

    def _token(self, request: Request) -> Reply:
        body = request.json() or {}
        key = str(body.get("consumer_key"))
        if key not in self.apps or self.apps[key] != body.get("consumer_secret"):
            return _failure("invalid_consumer_key_or_secret_provided", "Invalid credentials")
        token = secrets.token_urlsafe(32)
        self.tokens.add(token)
        expiry = (datetime.now(tz=UTC) + timedelta(minutes=5)).isoformat()
        return Reply(
            200,
            {
                "token": token,
                "expiryDate": expiry,
                "error": None,
                "status": "200",
                "message": "Request processed successfully",
            },
        )

    def _register_ipn(self, request: Request) -> Reply:
        if not self._authorized(request):
            return Reply(401, {"status": "401"})
        body = request.json()
        kind = str(body.get("ipn_notification_type", "GET")).upper()
        ipn_id = str(uuid.uuid4())
        self.ipns[ipn_id] = {"url": body["url"], "type": kind}
        return Reply(
            200,
            {
                "id": len(self.ipns),
                "url": body["url"],
                "created_date": _now(),
                "ipn_id": ipn_id,
                "notification_type": 1 if kind == "POST" else 0,
                "ipn_notification_type_description": kind,
                "ipn_status": 1,
                "ipn_status_decription": "Active",
                "error": None,
                "status": "200",
            },
        )

    def _ipn_list(self, request: Request) -> Reply:
        if not self._authorized(request):
            return Reply(401, {"status": "401"})
        return Reply(
            200,
            [
                {
                    "url": v["url"],
                    "created_date": _now(),
                    "ipn_id": k,
                    "error": None,
                    "status": "200",
                }
                for k, v in self.ipns.items()
            ],
        )

    def _submit(self, request: Request) -> Reply:
        if not self._authorized(request):
            return Reply(401, {"status": "401"})
        body = request.json()
        if body.get("notification_id") not in self.ipns:
            return _failure("invalid_notification_id", "Invalid notification id")
        if not 0 < len(str(body.get("id", ""))) <= 50 or not body.get("billing_address"):
            return _failure("invalid_request", "id or billing_address missing")
        tracking_id = str(uuid.uuid4())
        self.checkouts[tracking_id] = Checkout(body=body, tracking_id=tracking_id)
        return Reply(
            200,
            {
                "order_tracking_id": tracking_id,
                "merchant_reference": body["id"],
                "redirect_url": self.page_url(tracking_id),
                "error": None,
                "status": "200",
            },
        )

    def page_url(self, tracking_id: str) -> str:
        return f"{self.base_url}/iframe/PesapalIframe3/Index?OrderTrackingId={tracking_id}"

    def _status(self, request: Request) -> Reply:
        if not self._authorized(request):
            return Reply(401, {"status": "401"})
        checkout = self.checkouts.get(request.query.get("orderTrackingId", ""))
        if checkout is None:
            return _failure("invalid_order_tracking_id", "Order not found")
        return Reply(200, self.status_body(checkout))

    def status_body(self, checkout: Checkout) -> dict[str, Any]:
        body = checkout.body
        paid = checkout.status_code != 0
        result: dict[str, Any] = {
            "payment_method": "Visa" if paid else "",
            "amount": checkout.paid_amount or body["amount"],
            "created_date": _now(),
            "confirmation_code": checkout.confirmation_code,
            "order_tracking_id": checkout.tracking_id,
            "payment_status_description": STATUS_WORDS[checkout.status_code],
            "description": None,
            "message": "Request processed successfully",
            "payment_account": "444444xxxxxx4444" if paid else "",
            "call_back_url": f"{body['callback_url']}?OrderTrackingId={checkout.tracking_id}"
            f"&OrderMerchantReference={body['id']}",
            "status_code": checkout.status_code,
            "merchant_reference": body["id"],
            "payment_status_code": "",
            "currency": body["currency"],
            "error": None,
            "status": "200",
        }
        if not paid:
            result["error"] = {
                "error_type": "api_error",
                "code": "payment_details_not_found",
                "message": "Pending Payment",
                "call_back_url": result["call_back_url"],
            }
            result["status"] = "500"
        return result

    def _refund(self, request: Request) -> Reply:
        """RefundRequest: only a paid checkout's confirmation code, never more than paid."""
        if not self._authorized(request):
            return Reply(401, {"error": {"code": "unauthorized", "message": "Invalid token"}})
        body = request.json()
        code = str(body.get("confirmation_code") or "")
        paid = [c for c in self.checkouts.values() if code and c.confirmation_code == code]
        try:
            amount = float(body.get("amount") or 0)
        except (TypeError, ValueError):
            amount = 0.0
        if not paid or not body.get("username") or not body.get("remarks"):
            return Reply(200, {"status": "500", "message": "Refund request failed"})
        checkout = paid[0]
        total = checkout.paid_amount or float(checkout.body["amount"])
        done = sum(
            r["amount"]
            for r in self.refunds
            if r["confirmation_code"] == code and r["state"] != "failed"
        )
        if amount <= 0 or done + amount > total:
            return Reply(200, {"status": "500", "message": "Amount exceeds the paid amount"})
        self.refunds.append({"confirmation_code": code, "amount": amount, "state": "pending"})
        plan = self.refund_plan.pop(0) if self.refund_plan else self.refund_default
        if plan != "hold":
            index = len(self.refunds) - 1
            decide = self.complete_refund if plan == "complete" else self.fail_refund
            threading.Thread(target=decide, args=(index,), daemon=True).start()
        return Reply(200, {"status": "200", "message": "Refund request successfully"})

    def complete_refund(self, index: int = -1, *, notify: bool = True) -> None:
        """PesaPal pays the refund: the transaction reads REVERSED and the IPN goes out."""
        refund = self.refunds[index]
        refund["state"] = "completed"
        for checkout in self.checkouts.values():
            if checkout.confirmation_code == refund["confirmation_code"]:
                checkout.status_code = 3
                if notify:
                    self.notify(checkout.tracking_id)

    def fail_refund(self, index: int = -1) -> None:
        """PesaPal turns the refund down after accepting it: nothing changes, no IPN."""
        self.refunds[index]["state"] = "failed"

    # --- the hosted page a customer opens --------------------------------------------
    def _page(self, request: Request) -> Reply:
        tracking_id = request.query.get("OrderTrackingId", "")
        checkout = self.checkouts.get(tracking_id)
        if checkout is None:
            return Reply(404, "unknown order", "text/html")
        html = (
            f"<h1>Pay KES {checkout.body['amount']}</h1>"
            f'<form method="post" action="/iframe/PesapalIframe3/Pay">'
            f'<input type="hidden" name="OrderTrackingId" value="{tracking_id}">'
            '<button name="outcome" value="paid">Pay</button>'
            '<button name="outcome" value="failed">Fail</button></form>'
        )
        return Reply(200, html, "text/html")

    def _pay_form(self, request: Request) -> Reply:
        form = request.form()
        checkout = self.checkouts.get(form.get("OrderTrackingId", ""))
        if checkout is None:
            return Reply(404, "unknown order", "text/html")
        self.settle(checkout.tracking_id, paid=form.get("outcome") == "paid")
        return Reply(200, "<p>Thank you</p>", "text/html")

    def settle(
        self, tracking_id: str, *, paid: bool, amount: float | None = None, notify: bool = True
    ) -> None:
        """The customer finishes on the page; PesaPal then notifies the merchant's IPN."""
        checkout = self.checkouts[tracking_id]
        checkout.status_code = 1 if paid else 2
        checkout.confirmation_code = secrets.token_hex(5).upper() if paid else ""
        checkout.paid_amount = amount
        if notify:
            self.notify(tracking_id)

    def notify(self, tracking_id: str) -> dict[str, Any]:
        checkout = self.checkouts[tracking_id]
        ipn = self.ipns[checkout.body["notification_id"]]
        fields = {
            "OrderTrackingId": tracking_id,
            "OrderMerchantReference": checkout.body["id"],
            "OrderNotificationType": "IPNCHANGE",
        }
        if ipn["type"] == "POST":
            response = httpx.post(ipn["url"], json=fields, timeout=30)
        else:
            response = httpx.get(ipn["url"], params=fields, timeout=30)
        reply: dict[str, Any] = response.json()
        self.ipn_replies.append(reply)
        return reply
