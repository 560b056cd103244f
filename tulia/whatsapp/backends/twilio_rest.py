"""Sending through Twilio's Messages REST API with the `twilio` library.

Per-tenant credentials come with each message. `TULIA_TWILIO_API_BASE` points the
client at another host (the local emulator in dev, tests and benchmarks).
Errors are classified for the delivery task: 429, 5xx and network failures are worth
retrying; other 4xx (invalid number, outside the 24-hour window…) are not.
"""

from __future__ import annotations

import json
from datetime import datetime

import requests
from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

from tulia.whatsapp.backends.base import Listed, OutgoingMessage, SendError, SendResult

REQUEST_TIMEOUT_SECONDS = 10.0
_RETRYABLE_STATUS = 429


def _client(message: OutgoingMessage) -> Client:
    from tulia.whatsapp.backends import twilio_api_base

    client = Client(
        message.account_sid,
        message.auth_token,
        http_client=TwilioHttpClient(timeout=REQUEST_TIMEOUT_SECONDS),
    )
    base = twilio_api_base()
    if base:
        client.api.base_url = base
    return client


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
            raise SendError(f"network error: {exc}", retryable=True) from exc
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
                   created_at=m.date_created)
            for m in found
        ]  # fmt: skip
