"""A local Twilio: the Messages and Content REST endpoints, plus signed webhooks towards us.

A real HTTP server in a background thread, so the real `twilio` client library talks
to it over a socket. It checks basic auth per account, records each message, can be
told to fail the next N sends with 429 or 500, and sends inbound messages and status
callbacks to our webhook signed with the account's auth token, as Twilio does.

WhatsApp's rules are emulated too (protocols.md §1.7): with `strict_window` on, a
free-form message to a customer who has not written in 24 hours (`customer_wrote`,
on the emulator's own clock) is refused with 63016, as is a template Meta has not
approved; a paused or disabled template is refused with 63027 and wrong variables
with 63028. Real Twilio reports these asynchronously in a status callback; answering
at once keeps tests simple, and our status handler maps both the same way.

The Content API lives under /v1/Content (endpoints listed in emulator_content.py;
its host is the same server). Approvals stay `received` until the test or demo calls `approve` or
`reject(sid, reason)`, unless `auto_approve` is set.
"""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import requests
from twilio.request_validator import RequestValidator

BODY_LIMIT = 1600
WINDOW = timedelta(hours=24)
_PATH_PREFIX = "/2010-04-01/Accounts/"
_CONTENT_PREFIX = "/v1/Content"


@dataclass(frozen=True)
class SentMessage:
    sid: str
    account_sid: str
    to: str
    from_: str
    body: str
    status_callback: str
    content_sid: str = ""
    content_variables: dict[str, str] = field(default_factory=dict)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class Content:
    """A Content API resource with its WhatsApp approval request, if any."""

    sid: str
    account_sid: str
    friendly_name: str
    language: str
    variables: dict[str, str]
    body: str
    approval: dict[str, str] | None = None  # name, category, status, rejection_reason


@dataclass
class EmulatorState:
    accounts: dict[str, str] = field(default_factory=dict)  # sid → auth token
    sent: list[SentMessage] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)  # HTTP statuses for the next calls
    contents: dict[str, Content] = field(default_factory=dict)
    last_inbound: dict[tuple[str, str], datetime] = field(default_factory=dict)
    # Messages that failed after Twilio accepted them: sid → (status, code, message).
    later: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def new_sid(prefix: str = "SM") -> str:
    return prefix + uuid.uuid4().hex


def _error(status: int, code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message, "more_info": "", "status": status}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Keep-alive, as Twilio's API: a client's session reuses its connection. Every
    # request's body is read before anything is answered, or it would be taken for
    # the next request on the connection.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the second waits for the
    # client's delayed ACK (~40 ms a request on a kept-alive connection).
    disable_nagle_algorithm = True
    _body = b""

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test and bench output quiet

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._body = self.rfile.read(length) if length else b""
        if self.path.startswith(_CONTENT_PREFIX):
            self._content("POST")
            return
        account_sid = self._signed_in_account()
        if account_sid is None:
            return
        form = {k: v[-1] for k, v in parse_qs(self._body.decode()).items()}
        status, payload = self.server.emulator.create_message(account_sid, form)
        self._reply(status, payload)

    def do_GET(self) -> None:
        self._body = b""
        if self.path.startswith(_CONTENT_PREFIX):
            self._content("GET")
            return
        account_sid = self._signed_in_account()
        if account_sid is None:
            return
        query = {k: v[-1] for k, v in parse_qs(self.path.partition("?")[2]).items()}
        self._reply(200, self.server.emulator.list_messages(account_sid, query))

    def _signed_in_account(self) -> str | None:
        """The account in the path when the request's Basic auth is its own; otherwise
        Twilio's 404 or 401 is already answered and None comes back."""
        account_sid = self._account_from_path()
        if account_sid is None:
            self._reply(404, _error(404, 20404, "The requested resource was not found"))
            return None
        if not self._authorised(account_sid):
            self._reply(401, _error(401, 20003, "Authentication Error"))
            return None
        return account_sid

    def _content(self, method: str) -> None:
        """The Content API: JSON bodies, basic auth by the account that owns the content."""
        header = self.headers.get("Authorization", "")
        account_sid = ""
        if header.startswith("Basic "):
            account_sid = base64.b64decode(header[6:]).decode().partition(":")[0]
        if not self._authorised(account_sid):
            self._reply(401, _error(401, 20003, "Authentication Error"))
            return
        raw = self._body.decode()
        try:
            data = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            self._reply(400, _error(400, 20001, "Invalid JSON"))
            return
        path = self.path.split("?", 1)[0].removeprefix(_CONTENT_PREFIX).strip("/")
        status, payload = self.server.emulator.content_request(account_sid, method, path, data)
        self._reply(status, payload)

    def _account_from_path(self) -> str | None:
        path = self.path.partition("?")[0]
        if not (path.startswith(_PATH_PREFIX) and path.endswith("/Messages.json")):
            return None
        return path.removeprefix(_PATH_PREFIX).split("/", 1)[0]

    def _authorised(self, account_sid: str) -> bool:
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        expected = self.server.emulator.state.accounts.get(account_sid)
        return user == account_sid and expected is not None and password == expected

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    emulator: TwilioEmulator


class TwilioEmulator:
    """Start with `with TwilioEmulator() as twilio:`; `twilio.base_url` is the API base."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = EmulatorState()
        self.strict_window = False
        self.auto_approve = False
        # Recipients Meta's per-user marketing limit holds back (63049 on a marketing send).
        self.marketing_limited: set[str] = set()
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self._server = _Server((host, port), _Handler)
        self._server.emulator = self
        # shutdown() waits for the serve loop's next poll (half a second by default).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> TwilioEmulator:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- control --------------------------------------------------------------------
    def add_account(self, account_sid: str, auth_token: str) -> None:
        self.state.accounts[account_sid] = auth_token

    def fail_next(self, count: int, status: int = 429) -> None:
        with self.state.lock:
            self.state.failures.extend([status] * count)

    def fail_after_accepting(self, sid: str, code: int, message: str) -> None:
        """Meta refused an accepted message later (as 63049 usually comes): the Message
        list shows it failed with the code, as Twilio's would."""
        with self.state.lock:
            self.state.later[sid] = ("failed", code, message)

    @property
    def sent(self) -> list[SentMessage]:
        with self.state.lock:
            return list(self.state.sent)

    def customer_wrote(self, our_number: str, customer: str, at: datetime | None = None) -> None:
        """Open (or date) the customer's 24-hour window with our number."""
        pair = (_address(our_number), _address(customer))
        with self.state.lock:
            self.state.last_inbound[pair] = at or self.clock()

    def approve(self, content_sid: str) -> None:
        self._decide(content_sid, "approved")

    def reject(self, content_sid: str, reason: str) -> None:
        self._decide(content_sid, "rejected", reason)

    def pause(self, content_sid: str) -> None:
        self._decide(content_sid, "paused")

    def _decide(self, content_sid: str, status: str, reason: str = "") -> None:
        with self.state.lock:
            approval = self.state.contents[content_sid].approval
            if approval is None:
                raise ValueError(f"{content_sid} was never submitted for approval")
            approval.update(status=status, rejection_reason=reason)

    def content(self, content_sid: str) -> Content:
        with self.state.lock:
            return self.state.contents[content_sid]

    # --- the Content resource -------------------------------------------------------
    def content_request(
        self, account_sid: str, method: str, path: str, data: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        from tulia.whatsapp.emulator_content import route

        return route(self, account_sid, method, path, data)

    def _in_window(self, from_: str, to: str) -> bool:
        with self.state.lock:
            last = self.state.last_inbound.get((from_, to))
        return last is not None and self.clock() - last < WINDOW

    def _content_refusal(self, account_sid: str, form: dict[str, str]) -> tuple[int, str] | None:
        """Why a ContentSid send is refused (error code, message), or None."""
        with self.state.lock:
            content = self.state.contents.get(form["ContentSid"])
        if content is None or content.account_sid != account_sid:
            return 21655, "The ContentSid is Invalid"
        status = (content.approval or {}).get("status", "unsubmitted")
        if status in ("paused", "disabled"):
            return 63027, "Template does not exist for a language and locale"
        try:
            variables = json.loads(form.get("ContentVariables") or "{}")
        except json.JSONDecodeError:
            return 21656, "The ContentVariables Parameter is invalid"
        if set(variables) != set(content.variables):
            return 63028, "Number of parameters provided does not match the expected number"
        outside = self.strict_window and not self._in_window(form["From"], form["To"])
        if status != "approved" and outside:
            return 63016, "Failed to send freeform message because you are outside the window"
        return self._marketing_refusal(content, form["To"])

    def _marketing_refusal(self, content: Content, to: str) -> tuple[int, str] | None:
        category = (content.approval or {}).get("category", "")
        if category.upper() == "MARKETING" and to in self.marketing_limited:
            return 63049, "Meta chose not to deliver this WhatsApp marketing message"
        return None

    # --- the Messages resource ------------------------------------------------------
    def create_message(self, account_sid: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self.state.lock:
            if self.state.failures:
                status = self.state.failures.pop(0)
                code = 20429 if status == 429 else 20500
                return status, _error(status, code, "Emulated failure")
        body = form.get("Body", "")
        if len(body) > BODY_LIMIT:
            return 400, _error(400, 21617, "The concatenated message body exceeds 1600 chars")
        if not form.get("To") or not form.get("From"):
            return 400, _error(400, 21604, "A 'To' and 'From' phone number is required")
        if form.get("ContentSid"):
            return self._create_from_content(account_sid, form)
        if self.strict_window and not self._in_window(form["From"], form["To"]):
            return 400, _error(
                400,
                63016,
                "Failed to send freeform message because you are outside the "
                "allowed window. If you are using WhatsApp, please use a Message Template.",
            )
        message = SentMessage(
            new_sid(), account_sid, form["To"], form["From"], body, form.get("StatusCallback", "")
        )
        with self.state.lock:
            self.state.sent.append(message)
        return 201, self._message_json(message)

    def _create_from_content(
        self, account_sid: str, form: dict[str, str]
    ) -> tuple[int, dict[str, Any]]:
        if form.get("Body") or form.get("MediaUrl"):
            return 400, _error(400, 21619, "Send either Body/MediaUrl or ContentSid, not both")
        refusal = self._content_refusal(account_sid, form)
        if refusal is not None:
            return 400, _error(400, *refusal)
        content = self.content(form["ContentSid"])
        variables = {
            str(k): str(v) for k, v in json.loads(form.get("ContentVariables") or "{}").items()
        }
        body = content.body
        for number, value in variables.items():
            body = body.replace("{{" + number + "}}", value)
        message = SentMessage(
            new_sid(), account_sid, form["To"], form["From"], body,
            form.get("StatusCallback", ""), content.sid, variables,
        )  # fmt: skip
        with self.state.lock:
            self.state.sent.append(message)
        return 201, self._message_json(message)

    def list_messages(self, account_sid: str, query: dict[str, str]) -> dict[str, Any]:
        """Twilio's Message list: the account's messages, newest first, filtered by To,
        From and `DateSent>` / `DateSent>=` (ISO 8601), one page of at most PageSize."""
        after = query.get("DateSent>") or query.get("DateSent>=")
        since = datetime.fromisoformat(after.replace("Z", "+00:00")) if after else None
        with self.state.lock:
            rows = [
                m
                for m in reversed(self.state.sent)
                if m.account_sid == account_sid
                and (not query.get("To") or m.to == query["To"])
                and (not query.get("From") or m.from_ == query["From"])
                and (since is None or m.created_at >= since)
            ]
        size = min(int(query.get("PageSize") or 50), 1000)
        uri = f"{_PATH_PREFIX}{account_sid}/Messages.json"
        return {
            "messages": [self._message_json(m) for m in rows[:size]],
            "page": 0, "page_size": size, "start": 0, "end": min(size, len(rows)) - 1,
            "uri": uri, "first_page_uri": uri, "next_page_uri": None, "previous_page_uri": None,
        }  # fmt: skip

    def _message_json(self, message: SentMessage) -> dict[str, Any]:
        now = message.created_at.strftime("%a, %d %b %Y %H:%M:%S +0000")
        with self.state.lock:
            status, code, error = self.state.later.get(message.sid, ("queued", None, None))
        return {
            "sid": message.sid,
            "account_sid": message.account_sid,
            "to": message.to,
            "from": message.from_,
            "body": message.body,
            "status": status,
            "num_segments": "1",
            "num_media": "0",
            "direction": "outbound-api",
            "api_version": "2010-04-01",
            "date_created": now,
            "date_updated": now,
            "date_sent": None,
            "error_code": code,
            "error_message": error,
            "price": None,
            "price_unit": "USD",
            "messaging_service_sid": None,
            "uri": f"{_PATH_PREFIX}{message.account_sid}/Messages/{message.sid}.json",
            "subresource_uris": {},
        }


# --- webhooks towards our server ------------------------------------------------------
def _address(number: str) -> str:
    return number if number.startswith("whatsapp:") else f"whatsapp:{number}"


def signed_post(
    url: str,
    auth_token: str,
    params: dict[str, str],
    *,
    public_url: str | None = None,
    timeout: float = 10.0,
) -> requests.Response:
    """POST `params` form-encoded to `url` with the X-Twilio-Signature Twilio would send.

    `public_url` is the address Twilio was configured with, when the request reaches
    the server another way (through a proxy, or directly on its bind address).
    """
    signature = RequestValidator(auth_token).compute_signature(public_url or url, params)
    return requests.post(
        url, data=params, headers={"X-Twilio-Signature": signature}, timeout=timeout
    )


def inbound_params(
    account_sid: str, our_number: str, customer: str, body: str = "", **extra: str
) -> dict[str, str]:
    """A Twilio-shaped "message comes in" form (protocols.md §1.1, sample A)."""
    sid = extra.pop("MessageSid", None) or new_sid(
        "MM" if extra.get("NumMedia", "0") != "0" else "SM"
    )
    return {
        "SmsMessageSid": sid,
        "NumMedia": "0",
        "ProfileName": "Test Customer",
        "MessageType": "text",
        "SmsSid": sid,
        "WaId": customer.lstrip("+"),
        "SmsStatus": "received",
        "Body": body,
        "To": f"whatsapp:{our_number}",
        "NumSegments": "1",
        "ReferralNumMedia": "0",
        "MessageSid": sid,
        "AccountSid": account_sid,
        "From": f"whatsapp:{customer}",
        "ApiVersion": "2010-04-01",
        **extra,
    }


def status_params(
    message: SentMessage, status: str, error_code: int | None = None
) -> dict[str, str]:
    """A Twilio-shaped status callback for a message this emulator accepted."""
    params = {
        "MessageSid": message.sid,
        "SmsSid": message.sid,
        "MessageStatus": status,
        "SmsStatus": status,
        "AccountSid": message.account_sid,
        "From": message.from_,
        "To": message.to,
        "ApiVersion": "2010-04-01",
        "ChannelPrefix": "whatsapp",
        "ChannelToAddress": message.to.removeprefix("whatsapp:"),
        "StructuredMessage": "false",
    }
    if status in ("delivered", "read", "undelivered"):
        params["EventType"] = status.upper()
    if error_code is not None:
        params["ErrorCode"] = str(error_code)
    return params


def main(argv: list[str] | None = None) -> None:
    """`python -m tulia.whatsapp.emulator --port 8010 --account AC…:token`: serve until killed."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Local Twilio Messages API emulator")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8010)
    parser.add_argument("--account", action="append", default=[], help="SID:TOKEN")
    parser.add_argument(
        "--auto-approve", action="store_true", help="approve WhatsApp templates on submission"
    )
    args = parser.parse_args(argv)
    with TwilioEmulator(args.host, args.port) as emulator:
        emulator.auto_approve = args.auto_approve
        for pair in args.account:
            sid, _, token = pair.partition(":")
            emulator.add_account(sid, token)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
