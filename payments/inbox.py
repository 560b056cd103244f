"""Storing a provider callback raw, before anything else is done with it."""

from __future__ import annotations

import json
import logging
from typing import Any
from uuid import UUID

from django.db import transaction
from django.http import HttpRequest
from kombu.exceptions import OperationalError as KombuOperationalError

from payments.models import PaymentEvent
from tenants.context import tenant_context

MAX_BODY_BYTES = 64 * 1024
logger = logging.getLogger("tulia.payments")


def client_ip(request: HttpRequest) -> str | None:
    # REMOTE_ADDR only: forwarded headers are caller-controlled unless a trusted proxy
    # rewrites them, and the deployment decides that, not this code.
    return request.META.get("REMOTE_ADDR") or None


def body_text(request: HttpRequest) -> str:
    text = request.body[:MAX_BODY_BYTES].decode("utf-8", errors="replace")
    # PostgreSQL text cannot hold NUL; replaced like any other undecodable byte.
    return text.replace("\x00", "\ufffd")


def json_object(text: str) -> dict[str, Any] | None:
    """The body as a JSON object, or None when it is not one (kept raw regardless)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def store_event(
    tenant_id: UUID,
    kind: str,
    raw_body: str,
    *,
    reference: str = "",
    source_ip: str | None = None,
    invalid: str = "",
    outcome: str = "",
    note: str = "",
) -> PaymentEvent:
    """Append the raw event in the tenant's context; an unparseable one is flagged."""
    if invalid:
        outcome, note = PaymentEvent.Outcome.INVALID, invalid
    with tenant_context(tenant_id) as tid:
        return PaymentEvent.objects.create(
            tenant_id=tid,
            kind=kind,
            reference=reference[:80],
            raw_body=raw_body,
            source_ip=source_ip,
            outcome=outcome or PaymentEvent.Outcome.RECEIVED,
            needs_review=bool(invalid),
            note=note[:255],
        )


def enqueue_after_commit(task: Any, *args: object) -> None:
    """Hand work to Celery only once the stored event is visible to the worker.

    Outside any transaction (a plain request) this runs at once: the event's own
    transaction has already committed by then.
    """
    transaction.on_commit(lambda: _publish(task, *args))


def _publish(task: Any, *args: object) -> None:
    # The event is stored: a broker outage must not turn into an error for the provider
    # (which may then never retry). The sweeper re-enqueues events left unprocessed.
    try:
        task.delay(*args)
    except (KombuOperationalError, OSError) as exc:
        logger.warning("broker unavailable, %s left to the sweeper: %s", task.name, exc)
