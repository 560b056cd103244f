"""Creating, submitting and checking WhatsApp templates through Twilio's Content API.

Chosen like the outbound backend: the real Content API (or the emulator, when
`TULIA_TWILIO_API_BASE` points at it) whenever messages go through Twilio; in the
console demo, a local stand-in that approves on submission, since no template ever
leaves the machine there.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Protocol

import requests
from twilio.base.exceptions import TwilioRestException
from twilio.rest import Client
from twilio.rest.content.v1.content import ContentList
from twilio.rest.content.v1.content.approval_create import ApprovalCreateList

from tulia.whatsapp.backends import TWILIO, backend_path, twilio_api_base
from tulia.whatsapp.backends.base import SendError

# Twilio's approval statuses → ours (MessageTemplate.Status values).
_STATUS = {
    "unsubmitted": "unsubmitted",
    "received": "pending",
    "pending": "pending",
    "approved": "approved",
    "rejected": "rejected",
    "paused": "paused",
    "disabled": "disabled",
}


@dataclass(frozen=True)
class Account:
    sid: str
    token: str


@dataclass(frozen=True)
class Approval:
    status: str  # a MessageTemplate.Status value
    rejection_reason: str = ""


class ContentClient(Protocol):
    def create(
        self, account: Account, name: str, language: str, body: str, examples: dict[str, str]
    ) -> str: ...

    def submit(self, account: Account, content_sid: str, name: str, category: str) -> Approval: ...

    def fetch(self, account: Account, content_sid: str) -> Approval: ...


def _approval(status: object, reason: object = "") -> Approval:
    return Approval(
        status=_STATUS.get(str(status or "").lower(), "pending"),
        rejection_reason=str(reason or "")[:500],
    )


def _failure(exc: Exception) -> SendError:
    if isinstance(exc, TwilioRestException):
        return SendError(
            f"twilio {exc.status}: {exc.msg}", retryable=exc.status >= 500, code=exc.code
        )
    return SendError(f"network error: {exc}", retryable=True)


class TwilioContentClient:
    def _client(self, account: Account) -> Client:
        client = Client(account.sid, account.token)
        base = twilio_api_base()
        if base:
            client.content.base_url = base
        return client

    def create(
        self, account: Account, name: str, language: str, body: str, examples: dict[str, str]
    ) -> str:
        request = ContentList.ContentCreateRequest(
            {
                "friendly_name": name,
                "language": language,
                "variables": examples,
                "types": {"twilio/text": {"body": body}},
            }
        )
        try:
            created = self._client(account).content.v1.contents.create(request)
        except (TwilioRestException, requests.RequestException) as exc:
            raise _failure(exc) from exc
        return str(created.sid)

    def submit(self, account: Account, content_sid: str, name: str, category: str) -> Approval:
        request = ApprovalCreateList.ContentApprovalRequest(
            {"name": name, "category": category.upper()}
        )
        try:
            contents = self._client(account).content.v1.contents(content_sid)
            created = contents.approval_create.create(request)
        except (TwilioRestException, requests.RequestException) as exc:
            raise _failure(exc) from exc
        return _approval(created.status, created.rejection_reason)

    def fetch(self, account: Account, content_sid: str) -> Approval:
        try:
            fetched = (
                self._client(account).content.v1.contents(content_sid).approval_fetch().fetch()
            )
        except (TwilioRestException, requests.RequestException) as exc:
            raise _failure(exc) from exc
        whatsapp = fetched.whatsapp or {}
        return _approval(whatsapp.get("status"), whatsapp.get("rejection_reason"))


class LocalContentClient:
    """The console demo's stand-in: local HX sids, approved as soon as submitted."""

    def create(
        self, account: Account, name: str, language: str, body: str, examples: dict[str, str]
    ) -> str:
        return "HX" + uuid.uuid4().hex

    def submit(self, account: Account, content_sid: str, name: str, category: str) -> Approval:
        return Approval(status="approved")

    def fetch(self, account: Account, content_sid: str) -> Approval:
        return Approval(status="approved")


def content_client() -> ContentClient:
    return TwilioContentClient() if backend_path() == TWILIO else LocalContentClient()
