"""Finding work that was stored but never (or no longer) handled, across tenants.

Inbound messages whose enqueue failed (broker down), whose task was lost, or whose
worker died mid-turn with its lease now expired are handed to a worker again; so are
outbound parts that were stored but never sent. Every task is safe to run twice, so
re-enqueueing something that is merely slow costs a no-op, never a second reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.db.models import Min, Q
from django.utils import timezone

from tenants.context import operator_context
from tulia.conversations import locks
from tulia.conversations.models import InboundMessage, OutboundMessage
from tulia.whatsapp import dispatch

SWEEP_LIMIT = 500
SENDING_STALE = timedelta(minutes=5)


def sweep_age() -> timedelta:
    return timedelta(seconds=float(settings.TULIA_SWEEP_AGE_SECONDS))


@dataclass(frozen=True)
class SweepResult:
    inbound_threads: int
    outbound_conversations: int


def _stalled_inbound() -> list[tuple[UUID, int]]:
    """The oldest pending message of each stalled thread."""
    now = timezone.now()
    lease_expired = now - timedelta(seconds=locks.lease_seconds())
    stalled = InboundMessage.objects.filter(
        Q(status=InboundMessage.Status.RECEIVED, received_at__lt=now - sweep_age())
        | Q(status=InboundMessage.Status.PROCESSING, processing_started_at__lt=lease_expired)
    )
    rows = (
        stalled.values("tenant_id", "sender_id", "from_e164")
        .annotate(first_id=Min("id"))
        .order_by("first_id")[:SWEEP_LIMIT]
    )
    return [(row["tenant_id"], row["first_id"]) for row in rows]


def _stalled_outbound() -> list[tuple[UUID, int]]:
    now = timezone.now()
    # A part left "sending" by a dead worker is retried: a rare duplicate beats a loss.
    OutboundMessage.objects.filter(
        status=OutboundMessage.Status.SENDING, status_updated_at__lt=now - SENDING_STALE
    ).update(status=OutboundMessage.Status.PENDING)
    rows = (
        OutboundMessage.objects.filter(
            status=OutboundMessage.Status.PENDING, created_at__lt=now - sweep_age()
        )
        .values_list("tenant_id", "conversation_id")
        .distinct()[:SWEEP_LIMIT]
    )
    return list(rows)


def sweep() -> SweepResult:
    with operator_context("gateway sweeper: re-enqueue stalled WhatsApp messages"):
        inbound = _stalled_inbound()
        outbound = _stalled_outbound()
    for tenant_id, message_id in inbound:
        dispatch.enqueue_turn(tenant_id, message_id)
    for tenant_id, conversation_id in outbound:
        dispatch.enqueue_delivery(tenant_id, conversation_id)
    return SweepResult(inbound_threads=len(inbound), outbound_conversations=len(outbound))
