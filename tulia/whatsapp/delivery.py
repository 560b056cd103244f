"""Delivering a conversation's stored outbound parts through the configured backend.

Parts go out strictly in id order, one deliverer per conversation at a time (a leased
lock), so the parts of a reply and consecutive replies never overtake each other. A
retryable failure stops the run and leaves that part and the ones after it pending
for the retry; a permanent failure is recorded with Twilio's error code and the next
part goes on.

Never twice: a part is committed `sending` before Twilio is called. A failure that
leaves it unclear whether Twilio got the request (a read timeout, a dropped connection)
leaves the part `sending`; so does a worker that dies mid-call. Holding the lease, a
deliverer that finds a `sending` part in its conversation knows nobody else is sending
it, and looks it up in Twilio's Message list (reconcile.py) before anything goes: found,
it is recorded; absent, it is sent; unanswerable, the run stops and is retried.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.conf import settings
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations import locks
from tulia.conversations.models import OutboundMessage
from tulia.observability import metrics
from tulia.observability.tracing import traced
from tulia.whatsapp import reconcile
from tulia.whatsapp.backends import OutgoingMessage, SendError, WhatsAppBackend, get_backend
from tulia.whatsapp.gate import TEMPLATE_REFUSALS
from tulia.whatsapp.routes import Route, route
from tulia.whatsapp.status import release_held

logger = logging.getLogger(__name__)
MAX_SEND_ATTEMPTS = 6
Status = OutboundMessage.Status


class DeliveryBusy(Exception):
    """Another worker is delivering this conversation; try again shortly."""


class DeliveryDeferred(Exception):
    """A retryable send failure; the part stays pending."""


def status_callback_url() -> str:
    return f"{settings.PUBLIC_BASE_URL}{reverse('whatsapp:status')}"


def deliver_conversation(
    tenant_id: UUID | str, conversation_id: int, backend: WhatsAppBackend | None = None
) -> int:
    """Send every pending part of the conversation; returns how many were sent."""
    with locks.hold(tenant_id, "send", conversation_id) as held:
        if not held.acquired:
            raise DeliveryBusy(f"conversation {conversation_id} is being delivered")
        with tenant_context(tenant_id) as tid:
            pending = list(
                OutboundMessage.objects.filter(
                    tenant_id=tid,
                    conversation_id=conversation_id,
                    status__in=(Status.PENDING, Status.SENDING),
                ).order_by("id")
            )
        where = route(tid, conversation_id) if pending else None
        if where is None:
            return 0
        chosen = backend or get_backend()
        sent = 0
        for message in pending:
            if message.status == Status.SENDING:
                settled = reconcile.settle_held(tid, message, chosen)
                if settled == "unknown":
                    raise DeliveryDeferred(f"message {message.pk} in doubt; Twilio not reachable")
                if settled != "absent":
                    continue  # found at Twilio: recorded, not sent again
            sent += _deliver_one(tid, message, where, chosen)
        return sent


def _deliver_one(
    tenant_id: UUID, message: OutboundMessage, where: Route, backend: WhatsAppBackend
) -> int:
    outgoing = OutgoingMessage(
        account_sid=where.account_sid,
        auth_token=where.auth_token,
        from_address=where.from_address,
        to_address=where.to_address,
        body="" if message.content_sid else message.body,
        content_sid=message.content_sid,
        content_variables=message.content_variables,
        status_callback=status_callback_url(),
        request_id=message.request_id,
    )
    claimed = {"status": Status.SENDING, "status_updated_at": timezone.now()}
    _mark(tenant_id, message.pk, attempts=F("attempts") + 1, **claimed)
    identity = {"tenant_id": tenant_id, "conversation_id": message.conversation_id}
    try:
        with traced(request_id=message.request_id or None, **identity):
            result = backend.send(outgoing)
    except SendError as exc:
        _send_failed(tenant_id, message, exc)
        return 0
    fields = _sent_fields(result.sid, result.status, backend.name)
    _mark(tenant_id, message.pk, **fields)
    release_held(tenant_id, [result.sid])  # a callback may have beaten the sid here
    metrics.MESSAGES_OUT.labels(tenant=str(tenant_id), status=str(fields["status"])).inc()
    return 1


def _sent_fields(sid: str, status: str, backend_name: str) -> dict[str, object]:
    known = {choice.value for choice in Status}
    return {
        "status": status if status in known else Status.QUEUED,
        "twilio_sid": sid,
        "backend": backend_name,
        "sent_at": timezone.now(),
        "status_updated_at": timezone.now(),
    }


def _send_failed(tenant_id: UUID, message: OutboundMessage, exc: SendError) -> None:
    fields: dict[str, object] = {"error_code": exc.code, "error_message": str(exc)[:500]}
    if exc.in_doubt:
        # Twilio may have it: the part stays `sending`, and the retry looks it up first.
        logger.warning("whatsapp send in doubt (request_id=%s): %s", message.request_id, exc)
        _mark(tenant_id, message.pk, **fields)
        raise DeliveryDeferred(str(exc)) from exc
    final = not exc.retryable or message.attempts + 1 >= MAX_SEND_ATTEMPTS
    logger.warning(
        "whatsapp send failed (request_id=%s code=%s final=%s): %s",
        message.request_id,
        exc.code,
        final,
        exc,
    )
    if final:
        # WhatsApp's window and template refusals are the gate's "not sent", not a fault.
        status = Status.NOT_SENT if exc.code in TEMPLATE_REFUSALS else Status.FAILED
        _mark(tenant_id, message.pk, status=status, **fields)
        metrics.MESSAGES_OUT.labels(tenant=str(tenant_id), status=status).inc()
        return
    _mark(tenant_id, message.pk, status=Status.PENDING, **fields)
    raise DeliveryDeferred(str(exc)) from exc


def _mark(tenant_id: UUID, message_id: int, **fields: object) -> None:
    with tenant_context(tenant_id):
        OutboundMessage.objects.filter(pk=message_id).update(**fields)
