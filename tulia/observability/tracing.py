"""One request id per inbound message or API request, carried everywhere.

The id lives in a contextvar bound together with the tenant and conversation, so every
log line, tool call, Celery task and outbound send made while handling it carries the
same identity. Celery tasks receive it in a message header (see `celery_signals`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import structlog

_VALID_ID = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")


def new_request_id() -> str:
    return uuid.uuid4().hex


def accept_request_id(candidate: str | None) -> str:
    """Keep a caller's id if it is well-formed (log injection otherwise), else make one."""
    if candidate and _VALID_ID.match(candidate):
        return candidate
    return new_request_id()


def current_request_id() -> str | None:
    value = structlog.contextvars.get_contextvars().get("request_id")
    return str(value) if value else None


@contextmanager
def traced(**identity: object) -> Iterator[str]:
    """Bind request_id (made if absent), tenant_id, conversation_id… for the block."""
    identity = {key: value for key, value in identity.items() if value is not None}
    identity.setdefault("request_id", current_request_id() or new_request_id())
    bound = {key: str(value) for key, value in identity.items()}
    with structlog.contextvars.bound_contextvars(**bound):
        yield bound["request_id"]
