"""The interface every outbound backend implements, and its typed errors."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict


class OutgoingMessage(BaseModel):
    model_config = ConfigDict(frozen=True)

    account_sid: str
    auth_token: str
    from_address: str  # whatsapp:+254…
    to_address: str
    body: str  # empty when the message is a template
    content_sid: str = ""
    content_variables: dict[str, str] = {}
    status_callback: str | None = None
    request_id: str = ""

    def __repr__(self) -> str:  # never print the token
        return f"OutgoingMessage(to={self.to_address!r}, request_id={self.request_id!r})"

    __str__ = __repr__


class SendResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    sid: str
    status: str  # queued / accepted / sent, as the provider reported it


class Listed(BaseModel):
    """One message from the provider's message list (what reconciliation compares)."""

    model_config = ConfigDict(frozen=True)

    sid: str
    status: str
    body: str
    created_at: datetime | None
    error_code: int | None = None
    error_message: str = ""


class SendError(Exception):
    """A send that did not happen; `retryable` says whether trying again may help.

    `in_doubt`: the request may have reached the provider before the failure (a read
    timeout, a connection dropped after sending): the message may exist, so it is
    looked up in the provider's list before it is ever sent again."""

    def __init__(
        self, message: str, *, retryable: bool, code: int | None = None, in_doubt: bool = False
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.code = code
        self.in_doubt = in_doubt


class WhatsAppBackend(Protocol):
    name: str

    def send(self, message: OutgoingMessage) -> SendResult: ...

    def sent_since(self, route: OutgoingMessage, since: datetime) -> list[Listed]:
        """Messages from `route.from_address` to `route.to_address` created since `since`
        (its body is ignored); SendError when the provider cannot be asked."""
        ...
