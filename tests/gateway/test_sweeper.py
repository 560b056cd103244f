"""The sweeper: stored-but-unhandled work is picked up again, across tenants."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tulia.celery import app as celery_app
from tulia.conversations import locks, pipeline
from tulia.conversations.models import InboundMessage, OutboundMessage
from tulia.whatsapp import sweeper
from tulia.whatsapp.outbound import send_to_customer

from .conftest import TEST_QUEUE, TOKEN_B, event
from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db


@pytest.fixture
def inline_tasks() -> Iterator[None]:
    """Run enqueued tasks in this thread, inside the test's transaction."""
    celery_app.conf["task_always_eager"] = True
    try:
        yield
    finally:
        celery_app.conf["task_always_eager"] = False


def _age_inbound(tenant_id, seconds: float, **fields) -> None:
    with tenant_context(tenant_id):
        InboundMessage.objects.update(
            received_at=timezone.now() - timedelta(seconds=seconds), **fields
        )


def _statuses(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(InboundMessage.objects.values_list("status", flat=True))


@pytest.mark.usefixtures("inline_tasks")
def test_old_received_messages_of_every_tenant_are_processed(
    post_signed, tenant, stranger, settings, django_capture_on_commit_callbacks
) -> None:
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    post_signed("inbound", event("inbound_text"))
    form = event("inbound_text", To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32)
    post_signed("inbound", form, token=TOKEN_B)
    _age_inbound(tenant.id, 60)
    _age_inbound(stranger.id, 60)
    with django_capture_on_commit_callbacks(execute=True):
        result = sweeper.sweep()
    assert result.inbound_threads == 2
    assert _statuses(tenant.id) == ["processed"]
    assert _statuses(stranger.id) == ["processed"]
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get().status == OutboundMessage.Status.SENT


def test_fresh_messages_are_left_to_their_own_task(post_signed, tenant, inline_tasks) -> None:
    post_signed("inbound", event("inbound_text"))
    assert sweeper.sweep().inbound_threads == 0
    assert _statuses(tenant.id) == ["received"]


def _thread_parts(tenant_id) -> tuple[object, ...]:
    with tenant_context(tenant_id):
        message = InboundMessage.objects.get()
    return pipeline.thread_lock(message.sender_id, message.from_e164)


def test_processing_under_a_live_lease_is_not_stolen(post_signed, tenant, inline_tasks) -> None:
    post_signed("inbound", event("inbound_text"))
    _age_inbound(tenant.id, 3600, status="processing", processing_started_at=timezone.now())
    with locks.hold(tenant.id, *_thread_parts(tenant.id)) as lease:
        assert lease.acquired
        assert sweeper.sweep().inbound_threads == 0
    assert _statuses(tenant.id) == ["processing"]


def test_processing_whose_lease_is_gone_is_retried_at_once(
    post_signed, tenant, stranger, inline_tasks
) -> None:
    post_signed("inbound", event("inbound_text"))
    # Claimed a moment ago by a worker that died: no lease holds the thread any more.
    _age_inbound(tenant.id, 1, status="processing", processing_started_at=timezone.now())
    with locks.hold(stranger.id, *_thread_parts(tenant.id)) as other:
        assert other.acquired  # the same thread's lock under another tenant is another key
        assert sweeper.sweep().inbound_threads == 1
    assert _statuses(tenant.id) == ["processed"]


def test_a_thread_swept_in_a_backlog_then_stranded_by_a_dead_worker_is_not_held_back(
    post_signed, tenant
) -> None:
    """The re-enqueue gap holds per claim: a thread swept while it waited, then claimed
    by a worker that was killed, goes back at once (issue 21: answered within 15 s of
    the kill), while the same claim is not re-enqueued sweep after sweep."""
    post_signed("inbound", event("inbound_text"))
    _age_inbound(tenant.id, 60)  # waited in a backlog: swept, its task queued again
    assert sweeper.sweep().inbound_threads == 1
    assert sweeper.sweep().inbound_threads == 0  # that task is still queued
    # A worker took it (one claim) and died with it: no lease holds the thread.
    _age_inbound(
        tenant.id, 60, status="processing", attempts=1, processing_started_at=timezone.now()
    )
    assert sweeper.sweep().inbound_threads == 1
    assert sweeper.sweep().inbound_threads == 0


def test_unsent_outbound_is_delivered(tenant, inline_tasks, settings) -> None:
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your payment was received"], "req")
    with tenant_context(tenant.id):
        OutboundMessage.objects.update(created_at=timezone.now() - timedelta(minutes=1))
    assert sweeper.sweep().outbound_conversations == 1
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get().status == OutboundMessage.Status.SENT


def test_part_left_sending_by_a_dead_deliverer_is_sent_again(tenant, inline_tasks, settings):
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your payment was received"], "req")
    with tenant_context(tenant.id):
        OutboundMessage.objects.update(status=OutboundMessage.Status.SENDING)
        conversation_id = OutboundMessage.objects.get().conversation_id
    with locks.hold(tenant.id, "send", conversation_id):
        assert sweeper.sweep().outbound_conversations == 0  # its deliverer is alive
    assert sweeper.sweep().outbound_conversations == 1
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get().status == OutboundMessage.Status.SENT


def test_sweep_is_on_the_beat_schedule() -> None:
    celery_app.loader.import_default_modules()
    entry = celery_app.conf.beat_schedule["whatsapp-sweep"]
    assert entry["task"] == "whatsapp.sweep"
    assert "whatsapp.sweep" in celery_app.tasks


def test_tests_use_their_own_queue() -> None:
    assert celery_app.conf.task_default_queue == TEST_QUEUE
    assert TEST_QUEUE in celery_app.amqp.queues


@pytest.mark.usefixtures("inline_tasks")
def test_part_left_sending_by_a_dead_worker_is_sent_again(tenant, settings) -> None:
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    customer = customer_who_just_wrote(tenant.id)
    send_to_customer(tenant.id, customer.pk, ["Your order shipped"], "req")
    long_ago = timezone.now() - timedelta(minutes=10)
    with tenant_context(tenant.id):
        OutboundMessage.objects.update(
            status="sending", status_updated_at=long_ago, created_at=long_ago
        )
    assert sweeper.sweep().outbound_conversations == 1
    with tenant_context(tenant.id):
        assert OutboundMessage.objects.get().status == OutboundMessage.Status.SENT
