"""Accepting an inbound WhatsApp message: store it once, then hand it to a worker.

The insert is `INSERT … ON CONFLICT DO NOTHING` on (tenant, MessageSid): Twilio's
retries and concurrent duplicate deliveries are decided by the unique constraint, in
one statement, and only the delivery that inserted the row enqueues a turn (or, over
a rate limit, holds the message back; see `throttle`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db import connection, transaction
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import WhatsAppSender
from tenants.phone import InvalidPhoneNumber, normalize_phone
from tulia.conversations.models import InboundMessage
from tulia.observability import metrics
from tulia.observability.tracing import current_request_id, new_request_id, traced
from tulia.whatsapp import dispatch, throttle
from tulia.whatsapp.schemas import InboundForm, MalformedForm

_INSERT = f"""
INSERT INTO {InboundMessage._meta.db_table}
    (tenant_id, sender_id, message_sid, from_e164, kind, body, content, request_id,
     status, attempts, last_error, received_at)
VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s, 'received', 0, '', %s)
ON CONFLICT (tenant_id, message_sid) DO NOTHING
RETURNING id
"""  # noqa: S608 - the table name is our own model's, values are parameters


@dataclass(frozen=True)
class Accepted:
    message_id: int | None  # None: a duplicate delivery, already stored
    request_id: str

    @property
    def duplicate(self) -> bool:
        return self.message_id is None


def _route(
    tenant_id: UUID, sender_id: int, message_id: int, from_e164: str, request_id: str
) -> None:
    """A new message gets a turn, or, over a rate limit, is held back. Only new rows
    reach here, so a redelivered MessageSid never counts against the limit twice."""
    verdict = throttle.admit(tenant_id, from_e164)
    if verdict.allowed:
        transaction.on_commit(lambda: dispatch.enqueue_turn(tenant_id, message_id))
        return
    throttle.hold_back(
        tenant_id, sender_id, message_id, from_e164, request_id=request_id, verdict=verdict
    )


def accept_inbound(tenant_id: UUID, sender: WhatsAppSender, form: InboundForm) -> Accepted:
    """Store the message (idempotent on MessageSid) and enqueue its turn after commit."""
    try:
        from_e164 = normalize_phone(form.from_)
    except InvalidPhoneNumber as exc:
        raise MalformedForm(f"From is not a phone number: {exc}") from exc
    content = form.content()
    # The HTTP request's id becomes the message's: one id from webhook to reply.
    request_id = current_request_id() or new_request_id()
    params: list[str | int | datetime] = [
        str(tenant_id),
        sender.pk,
        form.message_sid,
        from_e164,
        content.kind,
        content.text,
        json.dumps(content.model_dump(mode="json")),
        request_id,
        timezone.now(),
    ]
    with traced(request_id=request_id, tenant_id=tenant_id), tenant_context(tenant_id):
        with connection.cursor() as cursor:
            cursor.execute(_INSERT, params)
            row = cursor.fetchone()
        if row is not None:
            # Counted once per stored row: a redelivered MessageSid inserts nothing.
            metrics.MESSAGES_IN.labels(tenant=str(tenant_id), kind=content.kind).inc()
            _route(tenant_id, sender.pk, int(row[0]), from_e164, request_id)
    return Accepted(message_id=row[0] if row else None, request_id=request_id)
