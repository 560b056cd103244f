"""The turn pipeline: stored inbound messages → the turn handler → queued replies.

A "thread" is one customer number talking to one of the tenant's senders. Its turns run
one at a time under a short Redis lease renewed by a heartbeat (locks.py), oldest
message first; whoever holds the lease keeps taking turns until the thread has nothing
pending, so a burst is answered in order by one worker while other threads proceed on
other workers.

Exactly one reply per message: the replies, the new conversation state and the
"processed" mark are written in one transaction, and only while the messages still
carry the lease token they were claimed with. A crash before it commits leaves the
messages unprocessed and the turn is run again (the sweeper notices the dead holder's
lease expire); a crash after it commits has nothing left to redo; a worker that was
paused past its lease finds its token replaced and writes nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import F, QuerySet
from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.services import get_or_create_customer
from tulia.conversations import locks
from tulia.conversations.models import Conversation, InboundMessage
from tulia.conversations.services import open_conversation
from tulia.conversations.turns import TurnInput, TurnOutput, get_turn_handler
from tulia.observability import metrics
from tulia.observability.tracing import traced
from tulia.text import say
from tulia.whatsapp.outbound import queue_reply
from tulia.whatsapp.schemas import InboundContent

logger = logging.getLogger(__name__)
MAX_TURN_ATTEMPTS = 5
MAX_MERGED = 10
# How many debounce waits a burst may stretch before it is answered anyway.
DEBOUNCE_CAP_FACTOR = 3
PENDING = (InboundMessage.Status.RECEIVED, InboundMessage.Status.PROCESSING)
_APOLOGY = "Sorry, something went wrong on our side. Please send your message again."


class ThreadBusy(Exception):
    """Another worker holds this thread's lock; try again shortly."""


class TurnFailed(Exception):
    """The turn handler raised; the messages stay pending for a retry."""


class LeaseLost(Exception):
    """The thread's lease passed to another worker: this turn must not be written."""


@dataclass
class Batch:
    tenant_id: UUID
    sender_id: int
    customer_id: int
    conversation_id: int
    conversation_status: str
    state: dict[str, Any]
    turn_number: int
    message_ids: list[int] = field(default_factory=list)
    contents: list[InboundContent] = field(default_factory=list)
    request_id: str = ""
    attempts: int = 0
    lease_token: str = ""


def debounce_seconds() -> float:
    return float(settings.TULIA_TURN_DEBOUNCE_SECONDS)


def debounce_cap() -> timedelta:
    """A customer who never pauses is still answered once their oldest message is this old."""
    return timedelta(seconds=DEBOUNCE_CAP_FACTOR * debounce_seconds())


def _burst_still_arriving(tenant_id: UUID, message_id: int, sender_id: int, from_e164: str) -> bool:
    """Debounce without a sleeping worker: each message's task is scheduled
    `debounce_seconds` after it arrived (dispatch.enqueue_turn). A task whose thread has
    a newer pending message that is still inside its own debounce wait steps aside:
    that message's task comes later and answers the whole burst as one turn."""
    if not debounce_seconds():
        return False
    now = timezone.now()
    pending = InboundMessage.objects.filter(
        tenant_id=tenant_id, sender_id=sender_id, from_e164=from_e164, status__in=PENDING
    ).order_by("id")
    oldest, newest = (
        pending.values("received_at").first(),
        pending.values("pk", "received_at").last(),
    )
    if oldest is None or newest is None or newest["pk"] == message_id:
        return False
    newest_still_waiting = now - newest["received_at"] < timedelta(seconds=debounce_seconds())
    return newest_still_waiting and now - oldest["received_at"] < debounce_cap()


def process_inbound(tenant_id: UUID | str, message_id: int) -> int:
    """Run every pending turn of the message's thread; returns how many ran."""
    with tenant_context(tenant_id) as tid:
        anchor = (
            InboundMessage.objects.filter(tenant_id=tid, pk=message_id, status__in=PENDING)
            .values("sender_id", "from_e164")
            .first()
        )
        if anchor is None:
            return 0  # already processed (a duplicate task), failed for good, or not ours
        if _burst_still_arriving(tid, message_id, anchor["sender_id"], anchor["from_e164"]):
            return 0  # a later message's task answers the burst
    with locks.hold(tid, *thread_lock(anchor["sender_id"], anchor["from_e164"])) as lease:
        if not lease.acquired:
            raise ThreadBusy(f"thread of inbound message {message_id} is busy")
        return _drain(lease, tid, anchor["sender_id"], anchor["from_e164"])


def thread_lock(sender_id: int, from_e164: str) -> tuple[object, ...]:
    """The lock parts naming a thread (the sweeper asks whether anyone holds it)."""
    return ("thread", sender_id, from_e164)


def _drain(lease: locks.Lease, tenant_id: UUID, sender_id: int, from_e164: str) -> int:
    turns = 0
    while (batch := claim_batch(tenant_id, sender_id, from_e164, lease)) is not None:
        try:
            run_turn(batch)
        except LeaseLost:
            # Another worker owns the thread now and answers this turn itself.
            logger.warning("lease lost mid-turn, turn discarded (request_id=%s)", batch.request_id)
            break
        turns += 1
    return turns


def _pending(tenant_id: UUID, sender_id: int, from_e164: str) -> list[InboundMessage]:
    limit = MAX_MERGED if debounce_seconds() else 1
    rows = InboundMessage.objects.filter(
        tenant_id=tenant_id, sender_id=sender_id, from_e164=from_e164, status__in=PENDING
    ).order_by("id")
    return list(rows.select_for_update()[:limit])


def claim_batch(
    tenant_id: UUID, sender_id: int, from_e164: str, lease: locks.Lease
) -> Batch | None:
    """Attach the thread's oldest pending message(s) to a conversation and mark them
    with the lease's token; None when nothing is pending or the lease is gone."""
    with tenant_context(tenant_id):
        messages = _pending(tenant_id, sender_id, from_e164)
        # Asked with the rows locked: a lease lost before this point claims nothing.
        if not messages or not lease.still_ours():
            return None
        profile = str(messages[0].content.get("profile_name", ""))
        customer, _ = get_or_create_customer(tenant_id, from_e164, display_name=profile)
        conversation = open_conversation(tenant_id, customer.pk, sender_id)
        ids = [message.pk for message in messages]
        InboundMessage.objects.filter(pk__in=ids).update(
            conversation=conversation,
            status=InboundMessage.Status.PROCESSING,
            attempts=F("attempts") + 1,
            processing_started_at=timezone.now(),
            lease_token=lease.token,
        )
        Conversation.objects.filter(pk=conversation.pk).update(
            last_inbound_at=max(message.received_at for message in messages)
        )
        return _batch(customer.pk, conversation, messages, lease.token)


def _batch(
    customer_id: int, conversation: Conversation, messages: list[InboundMessage], token: str
) -> Batch:
    return Batch(
        tenant_id=conversation.tenant_id,
        sender_id=conversation.sender_id,
        customer_id=customer_id,
        conversation_id=conversation.pk,
        conversation_status=conversation.status,
        state=dict(conversation.state),
        turn_number=conversation.turn_count + 1,
        message_ids=[message.pk for message in messages],
        contents=[InboundContent.model_validate(message.content) for message in messages],
        request_id=messages[0].request_id,
        attempts=max(message.attempts for message in messages) + 1,
        lease_token=token,
    )


def run_turn(batch: Batch) -> None:
    identity = {"tenant_id": batch.tenant_id, "conversation_id": batch.conversation_id}
    started = time.perf_counter()
    outcome = "retry"  # _run_turn raised: the messages stay pending for another attempt
    try:
        with traced(request_id=batch.request_id, **identity):
            outcome = _run_turn(batch)
    finally:
        metrics.TURNS.labels(tenant=str(batch.tenant_id), outcome=outcome).inc()
        metrics.TURN_SECONDS.observe(time.perf_counter() - started)


def _run_turn(batch: Batch) -> str:
    """Run the turn; its outcome for the metrics: answered, human, failed."""
    if batch.attempts > MAX_TURN_ATTEMPTS:
        # Claimed again and again without finishing: it kills its worker. Stop here.
        _give_up(batch, RuntimeError("turn never finished; worker lost repeatedly?"))
        return "failed"
    if batch.conversation_status not in Conversation.OPEN_STATUSES:
        finish_turn(batch, TurnOutput())
        return "human"
    try:
        # Waiting for or talking to a person, the handler still runs: a STOP must be
        # honoured and the queue notice sent; it stays quiet otherwise.
        output = get_turn_handler()(_turn_input(batch))
    except Exception as exc:
        _handler_failed(batch, exc)
        return "failed"  # reached only when the attempts are used up
    finish_turn(batch, output)
    return "answered" if batch.conversation_status == Conversation.Status.AI_ACTIVE else "human"


def _turn_input(batch: Batch) -> TurnInput:
    return TurnInput(
        tenant_id=batch.tenant_id,
        conversation_id=batch.conversation_id,
        customer_id=batch.customer_id,
        sender_id=batch.sender_id,
        request_id=batch.request_id,
        messages=batch.contents,
        inbound_message_ids=batch.message_ids,
        state=batch.state,
        turn_number=batch.turn_number,
        conversation_status=batch.conversation_status,
    )


def _handler_failed(batch: Batch, exc: Exception) -> None:
    logger.exception("turn handler failed (request_id=%s)", batch.request_id)
    if batch.attempts >= MAX_TURN_ATTEMPTS:
        _give_up(batch, exc)
        return
    with tenant_context(batch.tenant_id):
        _claimed(batch).update(status=InboundMessage.Status.RECEIVED, last_error=repr(exc)[:500])
    raise TurnFailed(str(exc)) from exc


def _give_up(batch: Batch, exc: Exception) -> None:
    """Mark the messages failed so the thread moves on; tell the customer honestly."""
    logger.error("giving up on inbound messages %s: %r", batch.message_ids, exc)
    finish_turn(batch, TurnOutput(replies=[_APOLOGY]), InboundMessage.Status.FAILED, exc)


def finish_turn(
    batch: Batch,
    output: TurnOutput,
    outcome: str = InboundMessage.Status.PROCESSED,
    error: Exception | None = None,
) -> None:
    """Replies, state and the processed mark: one transaction, so all or nothing, and
    only while the messages still carry this turn's lease token (the fence)."""
    with tenant_context(batch.tenant_id):
        # Messages first, then the conversation: the order claim_batch locks them in.
        marked = _claimed(batch).update(
            status=outcome,
            processed_at=timezone.now(),
            last_error=repr(error)[:500] if error else "",
        )
        if marked != len(batch.message_ids):
            raise LeaseLost(f"messages {batch.message_ids} were claimed by another lease")
        conversation = Conversation.objects.select_for_update().get(pk=batch.conversation_id)
        if output.state is not None:
            conversation.state = output.state
        conversation.turn_count = F("turn_count") + 1
        conversation.save(update_fields=["state", "turn_count", "updated_at"])
        replies = [*output.replies, *_privacy_notice(batch, output)]
        queue_reply(batch.tenant_id, batch.conversation_id, replies, batch.request_id)


def _privacy_notice(batch: Batch, output: TurnOutput) -> list[str]:
    """The shop's short privacy notice after the first reply a customer ever gets from it
    (show_privacy_notice), in the reply's language; never after a STOP."""
    if batch.turn_number != 1 or not output.replies:
        return []
    tenant = get_tenant(batch.tenant_id)
    state = output.state or {}
    if not tenant.compliance_settings.show_privacy_notice or state.get("consent_command"):
        return []
    earlier = Conversation.objects.filter(
        tenant_id=batch.tenant_id, customer_id=batch.customer_id, pk__lt=batch.conversation_id
    )
    if earlier.exists():
        return []  # met before, in an older conversation
    language = state.get("response_language") or tenant.default_language
    return [say("gateway.privacy_notice", language, shop=tenant.name)]


def _claimed(batch: Batch) -> QuerySet[InboundMessage]:
    """The batch's messages, as long as this batch's claim is the latest one on them."""
    return InboundMessage.objects.filter(
        pk__in=batch.message_ids,
        status=InboundMessage.Status.PROCESSING,
        lease_token=batch.lease_token,
    )
