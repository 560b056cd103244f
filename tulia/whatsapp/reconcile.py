"""Settling a message left "sending" by a dead deliverer: ask Twilio before sending again.

Twilio's message create takes no idempotency key. A deliverer commits the row as
`sending` before it calls Twilio, so a row still `sending` when nobody holds its
conversation's send lease is in doubt: Twilio may have accepted it just before the
worker died. Twilio's message list for the pair (our number → the customer) since
the claim answers it. Deliveries in a conversation are serialised by that lease, so
a listed message created after the claim whose sid none of our rows knows is this
one (the body is compared first, for certainty).

- found: the row takes the listed sid and status (a message Twilio lists as failed
  is recorded failed, with its code: found is not the same as sent); it is not sent
  again;
- absent: Twilio has nothing, the row goes back to pending and is delivered again;
- unknown: Twilio could not be asked; the row stays in doubt for the next attempt.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Literal
from uuid import UUID

from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations import locks
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.backends import OutgoingMessage, SendError, WhatsAppBackend, get_backend
from tulia.whatsapp.backends.base import Listed
from tulia.whatsapp.gate import TEMPLATE_REFUSALS
from tulia.whatsapp.routes import route
from tulia.whatsapp.status import RANK, release_held

logger = logging.getLogger(__name__)
Outcome = Literal["found", "absent", "unknown", "busy", "settled"]
Status = OutboundMessage.Status
# Our clock and Twilio's may disagree a little: look this far before the claim.
CLOCK_SKEW = timedelta(minutes=2)


def reconcile(
    tenant_id: UUID | str, message_id: int, backend: WhatsAppBackend | None = None
) -> Outcome:
    """Settle one `sending` row against Twilio's message list (see the module doc)."""
    with tenant_context(tenant_id) as tid:
        message = OutboundMessage.objects.filter(tenant_id=tid, pk=message_id).first()
    if message is None or message.status != Status.SENDING:
        return "settled"
    with locks.hold(tid, "send", message.conversation_id) as held:
        if not held.acquired:
            return "busy"  # a live deliverer has it
        return settle_held(tid, message, backend or get_backend())


def settle_held(tenant_id: UUID, message: OutboundMessage, backend: WhatsAppBackend) -> Outcome:
    """`reconcile` for a caller that already holds the conversation's send lease (the
    deliverer, before it sends anything after a part left in doubt)."""
    where = route(tenant_id, message.conversation_id)
    if where is None:
        return "unknown"
    claimed = message.status_updated_at or message.created_at
    pair = OutgoingMessage(
        account_sid=where.account_sid,
        auth_token=where.auth_token,
        from_address=where.from_address,
        to_address=where.to_address,
        body="",
    )
    try:
        listed = backend.sent_since(pair, claimed - CLOCK_SKEW)
    except SendError as exc:
        logger.warning("cannot reconcile message %s with Twilio: %s", message.pk, exc)
        return "unknown"
    with tenant_context(tenant_id) as tid:
        known = set(
            OutboundMessage.objects.filter(
                tenant_id=tid, twilio_sid__in=[row.sid for row in listed]
            ).values_list("twilio_sid", flat=True)
        )
        unknown = [row for row in listed if row.sid not in known]
        match = next((row for row in unknown if row.body == message.body), None)
        match = match or (unknown[0] if unknown else None)
        rows = OutboundMessage.objects.filter(tenant_id=tid, pk=message.pk, status=Status.SENDING)
        if match is None:
            rows.update(status=Status.PENDING, status_updated_at=timezone.now())
            return "absent"
        rows.update(**_found_fields(match), backend=backend.name)
    release_held(tenant_id, [match.sid])  # callbacks that came while it was in doubt
    return "found"


def _found_fields(match: Listed) -> dict[str, object]:
    """The listed message's sid and real status: failed stays failed (a WhatsApp
    refusal as the gate's "not sent", as status callbacks record it)."""
    status = match.status if match.status in RANK and RANK[match.status] >= 2 else Status.QUEUED
    fields: dict[str, object] = {
        "twilio_sid": match.sid,
        "sent_at": match.created_at or timezone.now(),
        "status_updated_at": timezone.now(),
    }
    if status in (Status.FAILED, Status.UNDELIVERED):
        if match.error_code in TEMPLATE_REFUSALS:
            status = Status.NOT_SENT
        fields |= {"error_code": match.error_code, "error_message": match.error_message[:500]}
    return fields | {"status": status}
