"""Finding work that was stored but never (or no longer) handled, across tenants.

Inbound messages whose enqueue failed (broker down) or whose task was lost are handed
to a worker again once they are TULIA_SWEEP_AGE_SECONDS old. A message left
"processing" is stranded as soon as nobody holds its thread's lease: leases are short
and renewed by a heartbeat while a turn runs (conversations/locks.py), so a free lease
means the worker that claimed it is dead (or paused, and fenced off at commit). That is
what bounds a killed worker's customers' wait: lease + one sweep interval + the turn.
Outbound parts that were stored but never sent are delivered again the same way; a
part left "sending" by a dead deliverer is first looked up in Twilio's message list
(tulia/whatsapp/reconcile.py) and sent again only if Twilio does not have it. Every
task is safe to run twice, so re-enqueueing something that is merely slow costs a
no-op, never a second reply; but under a backlog
everything looks slow, so a thread or conversation is re-enqueued at most once per
REENQUEUE_GAP, and only one sweep runs at a time, or the sweeps would flood the queue
they are waiting in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.db.models import Max, Min
from django.utils import timezone

from tenants.context import operator_context
from tenants.keys import tenant_key
from tulia.conversations import locks
from tulia.conversations.models import InboundMessage, OutboundMessage
from tulia.conversations.pipeline import thread_lock
from tulia.redis_client import get_redis
from tulia.whatsapp import dispatch, reconcile

SWEEP_LIMIT = 500
REENQUEUE_GAP_SECONDS = 30
SWEEP_LOCK = "tulia:sweeper:running"  # platform-wide, not a tenant's
# How long a sweep that never finished (its worker was killed mid-sweep) keeps the next
# ones away. Short: while it lasts nothing stranded is re-enqueued, and the wait of a
# killed worker's customers must stay within seconds (a late overlap is harmless).
SWEEP_LOCK_SECONDS = 10


def sweep_age() -> timedelta:
    return timedelta(seconds=float(settings.TULIA_SWEEP_AGE_SECONDS))


@dataclass(frozen=True)
class SweepResult:
    inbound_threads: int
    outbound_conversations: int


def _oldest_per_thread(status: str, **filters: object) -> list[dict[str, object]]:
    rows = (
        InboundMessage.objects.filter(status=status, **filters)
        .values("tenant_id", "sender_id", "from_e164")
        .annotate(first_id=Min("id"), claims=Max("attempts"))
        .order_by("first_id")[:SWEEP_LIMIT]
    )
    return list(rows)


def _unleased(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """The threads nobody holds a lease on (their holder died or never existed)."""
    return [
        row
        for row in rows
        if not locks.is_held(
            str(row["tenant_id"]), *thread_lock(int(str(row["sender_id"])), str(row["from_e164"]))
        )
    ]


def _enqueue_once_per_gap(
    enqueue: Callable[[UUID, int], bool], tenant_id: UUID, pk: int, *parts: object
) -> bool:
    """Enqueue unless this thread or conversation was re-enqueued within the gap; a
    failed enqueue (broker down) leaves it due for the next sweep."""
    key = tenant_key(tenant_id, "swept", *parts)
    client = get_redis()
    if not client.set(key, 1, nx=True, ex=REENQUEUE_GAP_SECONDS):
        return False
    if not enqueue(tenant_id, pk):
        client.delete(key)
        return False
    return True


def _stalled_inbound() -> list[tuple[UUID, int, object, object, str]]:
    """The oldest pending message of each stalled thread, with the thread and how many
    times a turn has claimed its messages: the gap between re-enqueues is kept per
    claim, so a thread swept while it waited in a backlog and then claimed by a worker
    that died is handed on as soon as the lease is gone, not when the old gap ends."""
    waiting = _oldest_per_thread(
        InboundMessage.Status.RECEIVED, received_at__lt=timezone.now() - sweep_age()
    )
    stranded = _unleased(_oldest_per_thread(InboundMessage.Status.PROCESSING))
    firsts: dict[tuple[object, ...], tuple[UUID, int, object, object]] = {}
    claims: dict[tuple[object, ...], int] = {}
    for row in [*stranded, *waiting]:
        thread = (row["tenant_id"], row["sender_id"], row["from_e164"])
        candidate = (UUID(str(row["tenant_id"])), int(str(row["first_id"])), *thread[1:])
        firsts[thread] = min(firsts.get(thread, candidate), candidate, key=lambda c: c[1])
        claims[thread] = max(claims.get(thread, 0), int(str(row["claims"] or 0)))
    found = [(*first, f"claim-{claims[thread]}") for thread, first in firsts.items()]
    return sorted(found, key=lambda first: first[1])


def _in_doubt() -> list[tuple[UUID, int, int]]:
    """Parts left "sending" by a deliverer that died between claiming and recording."""
    sending = OutboundMessage.objects.filter(status=OutboundMessage.Status.SENDING)
    return [
        (tenant_id, conversation_id, message_id)
        for tenant_id, conversation_id, message_id in sending.values_list(
            "tenant_id", "conversation_id", "id"
        )[:SWEEP_LIMIT]
        if not locks.is_held(tenant_id, "send", conversation_id)
    ]


def _settle(in_doubt: list[tuple[UUID, int, int]]) -> set[tuple[UUID, int]]:
    """Ask Twilio about each part in doubt (outside any transaction) before anything is
    sent again: a part Twilio has is recorded as sent, one it has not goes back to
    pending; the conversations with parts to send again."""
    resend = set()
    for tenant_id, conversation_id, message_id in in_doubt:
        if reconcile.reconcile(tenant_id, message_id) == "absent":
            resend.add((tenant_id, conversation_id))
    return resend


def _stalled_outbound() -> list[tuple[UUID, int]]:
    rows = (
        OutboundMessage.objects.filter(
            status=OutboundMessage.Status.PENDING, created_at__lt=timezone.now() - sweep_age()
        )
        .values_list("tenant_id", "conversation_id")
        .distinct()[:SWEEP_LIMIT]
    )
    return sorted(set(rows), key=lambda row: row[1])


def sweep() -> SweepResult:
    client = get_redis()
    if not client.set(SWEEP_LOCK, 1, nx=True, ex=SWEEP_LOCK_SECONDS):
        return SweepResult(inbound_threads=0, outbound_conversations=0)  # one is running
    try:
        return _sweep()
    finally:
        client.delete(SWEEP_LOCK)


def _sweep() -> SweepResult:
    with operator_context("gateway sweeper: find stalled WhatsApp messages"):
        in_doubt = _in_doubt()
    resend = _settle(in_doubt)
    with operator_context("gateway sweeper: re-enqueue stalled WhatsApp messages"):
        inbound = _stalled_inbound()
        outbound = sorted(set(_stalled_outbound()) | resend, key=lambda row: row[1])
    threads = sum(
        _enqueue_once_per_gap(dispatch.enqueue_turn, tenant_id, message_id, sender_id, phone, claim)
        for tenant_id, message_id, sender_id, phone, claim in inbound
    )
    conversations = sum(
        _enqueue_once_per_gap(dispatch.enqueue_delivery, tenant_id, conversation_id, "send")
        for tenant_id, conversation_id in outbound
    )
    return SweepResult(inbound_threads=threads, outbound_conversations=conversations)
