"""Thread leases: kept alive by a heartbeat, and a fence for a worker that lost its lease."""

from __future__ import annotations

import time

import pytest

from tenants.context import tenant_context
from tests.gateway.conftest import event
from tests.gateway.test_worker import wait_for
from tulia.conversations import locks, pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.conversations.turns import TurnOutput
from tulia.redis_client import get_redis

pytestmark = pytest.mark.django_db


def _stored_message(post_signed, tenant_id) -> InboundMessage:
    assert post_signed("inbound", event("inbound_text", Body="size 42?")).status_code == 200
    with tenant_context(tenant_id):
        return InboundMessage.objects.get()


def _replies(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))


def test_heartbeat_keeps_a_turn_longer_than_its_lease_leased(tenant, stranger, settings) -> None:
    settings.TULIA_TURN_LOCK_LEASE = 0.3
    with locks.hold(tenant.id, "thread", 1, "+254712345678") as lease:
        assert lease.acquired
        time.sleep(1.2)  # four leases long: only the heartbeat keeps it
        assert not lease.lost
        assert locks.is_held(tenant.id, "thread", 1, "+254712345678")
        with locks.hold(tenant.id, "thread", 1, "+254712345678") as second:
            assert not second.acquired
        # The same parts under another tenant are another lock.
        assert not locks.is_held(stranger.id, "thread", 1, "+254712345678")
    assert not locks.is_held(tenant.id, "thread", 1, "+254712345678")


def test_a_worker_paused_past_its_lease_cannot_write_its_turn(
    post_signed, tenant, settings
) -> None:
    settings.TULIA_TURN_LOCK_LEASE = 0.5
    message = _stored_message(post_signed, tenant.id)
    thread = (tenant.id, message.sender_id, message.from_e164)
    parts = pipeline.thread_lock(message.sender_id, message.from_e164)
    with locks.hold(tenant.id, *parts) as paused:
        late = pipeline.claim_batch(*thread, paused)
        assert late is not None
        # While the worker is paused its lease runs out, as a stopped process's would.
        get_redis().delete(locks.lock_key(tenant.id, *parts))
        with locks.hold(tenant.id, *parts) as taken_over:
            assert taken_over.acquired
            retried = pipeline.claim_batch(*thread, taken_over)
            assert retried is not None
            assert retried.message_ids == late.message_ids
            pipeline.finish_turn(retried, TurnOutput(replies=["answer"], state={"by": "second"}))
        wait_for(lambda: paused.lost, timeout=5)  # its heartbeat finds the lease gone
        # Resumed, the first worker finishes its turn: the fence refuses the write.
        with pytest.raises(pipeline.LeaseLost):
            pipeline.finish_turn(late, TurnOutput(replies=["late answer"], state={"by": "first"}))
        assert pipeline.claim_batch(*thread, paused) is None  # and it claims nothing more
    assert _replies(tenant.id) == ["answer"]
    with tenant_context(tenant.id):
        assert Conversation.objects.get().state == {"by": "second"}
        stored = InboundMessage.objects.get()
    assert stored.status == InboundMessage.Status.PROCESSED
    assert stored.attempts == 2
    assert stored.lease_token == retried.lease_token != late.lease_token


def test_a_lost_lease_ends_the_drain_without_an_error(post_signed, tenant, settings) -> None:
    settings.TULIA_TURN_HANDLER = "tests.gateway.placeholder.acknowledge"
    message = _stored_message(post_signed, tenant.id)
    parts = pipeline.thread_lock(message.sender_id, message.from_e164)
    with locks.hold(tenant.id, *parts) as lease:
        get_redis().delete(locks.lock_key(tenant.id, *parts))
        assert pipeline._drain(lease, tenant.id, message.sender_id, message.from_e164) == 0
    assert _replies(tenant.id) == []
    with tenant_context(tenant.id):
        assert InboundMessage.objects.get().status == InboundMessage.Status.RECEIVED
