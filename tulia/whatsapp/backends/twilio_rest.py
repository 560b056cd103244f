"""Sending through Twilio's Messages REST API with the `twilio` library.

Per-tenant credentials come with each message. `TULIA_TWILIO_API_BASE` points the
client at another host (the local emulator in dev, tests and benchmarks).
Errors are classified for the delivery task: 429, 5xx and network failures are worth
retrying; other 4xx (invalid number, outside the 24-hour window…) are not. A network
failure after the request may have left us is "in doubt": the message may exist at
Twilio, so it is looked up in the Message list before any second attempt.

One client per account and API base is kept per process: its session keeps the HTTPS
connection alive, so a campaign batch pays the TCP and TLS set-up once, not per send.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from datetime import datetime

import requests
from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client
from urllib3.exceptions import NewConnectionError

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


def _network_error(exc: requests.RequestException) -> SendError:
    """Only a connection that was never made proves the request did not reach Twilio."""
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    never_sent = isinstance(exc, requests.ConnectTimeout) or isinstance(reason, NewConnectionError)
    return SendError(f"network error: {exc}", retryable=True, in_doubt=not never_sent)


def _classify(exc: TwilioRestException) -> SendError:
    retryable = exc.status == _RETRYABLE_STATUS or exc.status >= 500
    return SendError(f"twilio {exc.status}: {exc.msg}", retryable=retryable, code=exc.code)


class TwilioBackend:
    name = "twilio"

    def send(self, message: OutgoingMessage) -> SendResult:
        options: dict[str, str] = {}
        if message.status_callback:
            options["status_callback"] = message.status_callback
        # A template goes by ContentSid + ContentVariables and never with a Body.
        if message.content_sid:
            options["content_sid"] = message.content_sid
            options["content_variables"] = json.dumps(message.content_variables)
        else:
            options["body"] = message.body
        try:
            created = _client(message).messages.create(
                to=message.to_address, from_=message.from_address, **options
            )
        except TwilioRestException as exc:
            raise _classify(exc) from exc
        except requests.RequestException as exc:
            raise _network_error(exc) from exc
        return SendResult(sid=str(created.sid), status=str(created.status or "queued"))

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
