"""Sending through Twilio's Messages REST API with the `twilio` library.

Per-tenant credentials come with each message. `TULIA_TWILIO_API_BASE` points the
client at another host (the local emulator in dev, tests and benchmarks).
Errors are classified for the delivery task: 429, 5xx and network failures are worth
retrying; other 4xx (invalid number, outside the 24-hour window…) are not. A network
failure after the request may have left us is "in doubt": the message may exist at
Twilio, so it is looked up in the Message list before any second attempt.

One client per account and API base is kept per process: its session keeps the HTTPS
connection alive, so a campaign batch pays the TCP and TLS set-up once, not per send.

Sending itself skips the library: a message create is one form POST, and the library's
way there (requests' request preparation, the response turned into a MessageInstance)
cost about two thirds of a campaign worker's CPU per send. `_post_message` makes the
same request over one urllib3 pool per process (kept alive, no retries of its own: a
POST retried blindly could be a second message) and reads Twilio's JSON answer and
error body the way the library does. Listing messages (rare) still goes through it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import logging
import os
import threading
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import certifi
import requests
import urllib3
from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client
from urllib3.exceptions import ConnectTimeoutError, HTTPError, NewConnectionError

from tulia.whatsapp.backends.base import Listed, OutgoingMessage, SendError, SendResult

REQUEST_TIMEOUT_SECONDS = 10.0
_RETRYABLE_STATUS = 429
# The library logs every request and its headers at INFO: a dozen lines per message,
# which at campaign rates cost more than the send. Its warnings still come through.
_http_log = logging.getLogger("tulia.whatsapp.twilio_http")
_http_log.setLevel(logging.WARNING)
MAX_CLIENTS = 256
TWILIO_API = "https://api.twilio.com"
_clients: dict[tuple[str, str, str], Client] = {}
_clients_lock = threading.Lock()


def _client(message: OutgoingMessage) -> Client:
    """The process's client for this account (and token, and API base)."""
    from tulia.whatsapp.backends import twilio_api_base

    base = twilio_api_base() or ""
    token_digest = hashlib.sha256(message.auth_token.encode()).hexdigest()
    key = (message.account_sid, token_digest, base)
    with _clients_lock:
        client = _clients.get(key)
    if client is not None:
        return client
    client = Client(
        message.account_sid,
        message.auth_token,
        http_client=TwilioHttpClient(
            timeout=REQUEST_TIMEOUT_SECONDS, pool_connections=True, logger=_http_log
        ),
    )
    if base:
        client.api.base_url = base
    _read_environment_once(client.http_client, base or TWILIO_API)
    with _clients_lock:
        if len(_clients) >= MAX_CLIENTS:
            _clients.clear()
        return _clients.setdefault(key, client)


def _read_environment_once(http: object, url: str) -> None:
    """Proxies and CA bundle from the environment, read now rather than on every
    request (requests walks the whole environment per call: a third of a send's CPU)."""
    session = getattr(http, "session", None)
    if session is None:
        return
    session.proxies.update(requests.utils.get_environ_proxies(url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    session.trust_env = False


def _classify(exc: TwilioRestException) -> SendError:
    retryable = exc.status == _RETRYABLE_STATUS or exc.status >= 500
    return SendError(f"twilio {exc.status}: {exc.msg}", retryable=retryable, code=exc.code)


@functools.cache
def _http() -> urllib3.PoolManager:
    """The process's connection pool for message creates (proxies from the environment,
    read once, as the library's session does). Two threads racing here make two pools;
    one is kept."""
    options: dict[str, Any] = {
        "num_pools": 16,
        "maxsize": 8,
        "retries": False,
        "timeout": urllib3.Timeout(REQUEST_TIMEOUT_SECONDS),
        "cert_reqs": "CERT_REQUIRED",
        "ca_certs": os.environ.get("REQUESTS_CA_BUNDLE") or certifi.where(),
    }
    proxy = requests.utils.get_environ_proxies(TWILIO_API).get("https")
    if proxy:
        return urllib3.ProxyManager(proxy, **options)
    return urllib3.PoolManager(**options)


def _post_message(message: OutgoingMessage, form: dict[str, str]) -> dict[str, Any]:
    """POST .../Messages.json: Twilio's JSON answer, or the SendError it means."""
    from tulia.whatsapp.backends import twilio_api_base

    base = twilio_api_base() or TWILIO_API
    url = f"{base}/2010-04-01/Accounts/{message.account_sid}/Messages.json"
    login = base64.b64encode(f"{message.account_sid}:{message.auth_token}".encode()).decode()
    try:
        reply = _http().request(
            "POST",
            url,
            body=urlencode(form),
            headers={
                "Authorization": f"Basic {login}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
        )
    except HTTPError as exc:  # only a connection never made proves Twilio did not get it
        never_sent = isinstance(exc, NewConnectionError | ConnectTimeoutError)
        raise SendError(f"network error: {exc}", retryable=True, in_doubt=not never_sent) from exc
    try:
        payload = json.loads(reply.data or b"{}")
    except ValueError:
        payload = {}
    if reply.status >= 400 or not isinstance(payload, dict):
        body = payload if isinstance(payload, dict) else {}
        raise _classify(
            TwilioRestException(
                reply.status, url, str(body.get("message") or reply.data[:200]), body.get("code")
            )
        )
    return payload


class TwilioBackend:
    name = "twilio"

    def send(self, message: OutgoingMessage) -> SendResult:
        form = {"To": message.to_address, "From": message.from_address}
        if message.status_callback:
            form["StatusCallback"] = message.status_callback
        # A template goes by ContentSid + ContentVariables and never with a Body.
        if message.content_sid:
            form["ContentSid"] = message.content_sid
            form["ContentVariables"] = json.dumps(message.content_variables)
        else:
            form["Body"] = message.body
        created = _post_message(message, form)
        if not created.get("sid"):
            raise SendError("twilio answered without a sid", retryable=True, in_doubt=True)
        return SendResult(sid=str(created["sid"]), status=str(created.get("status") or "queued"))

    def sent_since(self, route: OutgoingMessage, since: datetime) -> list[Listed]:
        """Twilio's Message list for the pair (reconciling a send left in doubt)."""
        try:
            found = _client(route).messages.list(
                to=route.to_address, from_=route.from_address, date_sent_after=since, limit=200
            )
        except TwilioRestException as exc:
            raise _classify(exc) from exc
        except requests.RequestException as exc:
            raise SendError(f"network error: {exc}", retryable=True) from exc
        return [
            Listed(sid=str(m.sid), status=str(m.status or ""), body=str(m.body or ""),
                   created_at=m.date_created, error_code=m.error_code,
                   error_message=str(m.error_message or ""))
            for m in found
        ]  # fmt: skip
