"""Delivering a conversation's stored outbound parts through the configured backend.

Parts go out strictly in id order, one deliverer per conversation at a time (a leased
lock), so the parts of a reply and consecutive replies never overtake each other. A
retryable failure stops the run and leaves that part and the ones after it pending
for the retry; a permanent failure is recorded with Twilio's error code and the next
part goes on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations import locks
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.observability import metrics
from tulia.observability.tracing import traced
from tulia.whatsapp.backends import OutgoingMessage, SendError, WhatsAppBackend, get_backend
from tulia.whatsapp.gate import TEMPLATE_REFUSALS

logger = logging.getLogger(__name__)
MAX_SEND_ATTEMPTS = 6
Status = OutboundMessage.Status


class DeliveryBusy(Exception):
    """Another worker is delivering this conversation; try again shortly."""


class DeliveryDeferred(Exception):
    """A retryable send failure; the part stays pending."""


@dataclass(frozen=True)
class Route:
    account_sid: str
    auth_token: str
    from_address: str
    to_address: str


def route(tenant_id: UUID, conversation_id: int) -> Route | None:
    """Where the conversation's messages go, with the sender's credentials (None if gone)."""
    with tenant_context(tenant_id) as tid:
        conversation = (
            Conversation.objects.select_related("sender", "customer")
            .filter(tenant_id=tid, pk=conversation_id)
            .first()
        )
        if conversation is None:
            return None
        sender = conversation.sender
        return Route(
            account_sid=sender.twilio_account_sid,
            auth_token=sender.twilio_auth_token.reveal(),
            from_address=sender.whatsapp_address,
            to_address=f"whatsapp:{conversation.customer.phone_e164}",
        )


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
                    tenant_id=tid, conversation_id=conversation_id, status=Status.PENDING
                ).order_by("id")
            )
        where = route(tid, conversation_id) if pending else None
        if where is None:
            return 0
        chosen = backend or get_backend()
        return sum(_deliver_one(tid, message, where, chosen) for message in pending)


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
    final = not exc.retryable or message.attempts + 1 >= MAX_SEND_ATTEMPTS
    logger.warning(
        "whatsapp send failed (request_id=%s code=%s final=%s): %s",
        message.request_id,
        exc.code,
        final,
        exc,
    )
    fields: dict[str, object] = {"error_code": exc.code, "error_message": str(exc)[:500]}
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
