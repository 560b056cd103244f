"""Applying Twilio status callbacks to stored outbound messages.

Callbacks arrive out of order, so a status only ever moves forward: `delivered` after
`read` is ignored, as is `sent` after `delivered`. The comparison and the update are
one conditional UPDATE (`WHERE status IN <lower ranks>`), so concurrent callbacks
cannot move a row backwards either.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.gate import TEMPLATE_REFUSALS
from tulia.whatsapp.schemas import StatusForm

logger = logging.getLogger(__name__)
Status = OutboundMessage.Status

# Terminal failures rank with delivered: a late "sent" never revives them, and a
# message already delivered or read is not demoted by a stray failure.
RANK: dict[str, int] = {
    Status.PENDING: 0,
    Status.SENDING: 1,
    Status.QUEUED: 2,
    Status.ACCEPTED: 2,
    Status.SENT: 3,
    Status.DELIVERED: 4,
    Status.UNDELIVERED: 4,
    Status.FAILED: 4,
    Status.NOT_SENT: 4,
    Status.READ: 5,
}
_ALIASES = {"sending": Status.QUEUED, "scheduled": Status.QUEUED}


def lower_than(status: str) -> list[str]:
    return [name for name, rank in RANK.items() if rank < RANK[status]]


def apply_status(tenant_id: UUID | str, form: StatusForm) -> bool:
    """Record the callback's status on our message; False when it changed nothing."""
    status = _ALIASES.get(form.message_status, form.message_status)
    if status in (Status.FAILED, Status.UNDELIVERED) and form.error_code in TEMPLATE_REFUSALS:
        status = Status.NOT_SENT  # outside the window or a refused template: as the gate's
    if status not in RANK:
        logger.info("ignoring Twilio status %r for %s", form.message_status, form.message_sid)
        return False
    fields: dict[str, object] = {"status": status, "status_updated_at": timezone.now()}
    if form.error_code is not None:
        fields |= {"error_code": form.error_code, "error_message": form.error_message[:500]}
    with tenant_context(tenant_id) as tid:
        updated = OutboundMessage.objects.filter(
            tenant_id=tid, twilio_sid=form.message_sid, status__in=lower_than(status)
        ).update(**fields)
    return bool(updated)
