"""A local Twilio: the Messages REST endpoint, plus signed webhooks towards us.

A real HTTP server in a background thread, so the real `twilio` client library talks
to it over a socket. It checks basic auth per account, records each message, can be
told to fail the next N sends with 429 or 500, and sends inbound messages and status
callbacks to our webhook signed with the account's auth token, as Twilio does.
"""

from __future__ import annotations

import base64
import json
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import requests
from twilio.request_validator import RequestValidator

BODY_LIMIT = 1600
_PATH_PREFIX = "/2010-04-01/Accounts/"


@dataclass(frozen=True)
class SentMessage:
    sid: str
    account_sid: str
    to: str
    from_: str
    body: str
    status_callback: str


@dataclass
class EmulatorState:
    accounts: dict[str, str] = field(default_factory=dict)  # sid → auth token
    sent: list[SentMessage] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)  # HTTP statuses for the next calls
    lock: threading.Lock = field(default_factory=threading.Lock)


def new_sid(prefix: str = "SM") -> str:
    return prefix + uuid.uuid4().hex


def _error(status: int, code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message, "more_info": "", "status": status}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test and bench output quiet

    def do_POST(self) -> None:
        account_sid = self._account_from_path()
        if account_sid is None:
            self._reply(404, _error(404, 20404, "The requested resource was not found"))
            return
        if not self._authorised(account_sid):
            self._reply(401, _error(401, 20003, "Authentication Error"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        form = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        status, payload = self.server.emulator.create_message(account_sid, form)
        self._reply(status, payload)

    def _account_from_path(self) -> str | None:
        if not (self.path.startswith(_PATH_PREFIX) and self.path.endswith("/Messages.json")):
            return None
        return self.path.removeprefix(_PATH_PREFIX).split("/", 1)[0]

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
        self._server = _Server((host, port), _Handler)
        self._server.emulator = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

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

    @property
    def sent(self) -> list[SentMessage]:
        with self.state.lock:
            return list(self.state.sent)

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
        message = SentMessage(
            new_sid(), account_sid, form["To"], form["From"], body, form.get("StatusCallback", "")
        )
        with self.state.lock:
            self.state.sent.append(message)
        return 201, self._message_json(message)

    @staticmethod
    def _message_json(message: SentMessage) -> dict[str, Any]:
        now = datetime.now(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")
        return {
            "sid": message.sid,
            "account_sid": message.account_sid,
            "to": message.to,
            "from": message.from_,
            "body": message.body,
            "status": "queued",
            "num_segments": "1",
            "num_media": "0",
            "direction": "outbound-api",
            "api_version": "2010-04-01",
            "date_created": now,
            "date_updated": now,
            "date_sent": None,
            "error_code": None,
            "error_message": None,
            "price": None,
            "price_unit": "USD",
            "messaging_service_sid": None,
            "uri": f"{_PATH_PREFIX}{message.account_sid}/Messages/{message.sid}.json",
            "subresource_uris": {},
        }


# --- webhooks towards our server ------------------------------------------------------
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
    args = parser.parse_args(argv)
    with TwilioEmulator(args.host, args.port) as emulator:
        for pair in args.account:
            sid, _, token = pair.partition(":")
            emulator.add_account(sid, token)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
