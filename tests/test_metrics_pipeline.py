"""Metrics moved by the real pipeline (webhook, turn, delivery, tools, payments) and the
gauges /metrics reads at scrape time (Celery queue depth, handoff queue length)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest
from django.test import Client
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from payments.models import PaymentStatus
from payments.pesapal.checkout import create_checkout
from payments.tasks import sweep_pending_stk
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.gateway.conftest import TOKEN_A, event, placeholder_turns, post_signed  # noqa: F401
from tests.payments.conftest import (  # noqa: F401
    FIXTURE_TRACKING_ID,
    daraja,
    eager_celery,
    make_order,
    payment_of,
    pesapal,
    pesapal_fixture,
    post_callback,
    shop,
)
from tools.runner import call_tool
from tulia.celery import app as celery_app
from tulia.conversations import pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.handoff.models import Category, HandoffTicket, TicketStatus
from tulia.observability import gauges
from tulia.redis_client import client_for
from tulia.whatsapp.delivery import deliver_conversation

pytestmark = pytest.mark.django_db


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client: Client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """GET /metrics and index every sample by (name, sorted labels)."""
    response = client.get("/metrics")
    assert response.status_code == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


@pytest.fixture(autouse=True)
def open_metrics(settings: Any) -> None:
    settings.TULIA_METRICS_TOKEN = ""


def test_one_message_moves_in_turn_and_out_by_exactly_one(post_signed, tenant) -> None:  # noqa: F811
    tid = str(tenant.id)
    seconds_before = sample("tulia_turn_seconds_count")
    form = event("inbound_text", Body="hello", MessageSid="SM" + "1" * 32)
    for _ in range(2):  # Twilio's retry of the same MessageSid is stored once
        assert post_signed("inbound", form).status_code == 200
    assert sample("tulia_messages_in_total", tenant=tid, kind="text") == 1
    with tenant_context(tenant.id):
        message_id = InboundMessage.objects.get().pk
    assert pipeline.process_inbound(tenant.id, message_id) == 1
    assert sample("tulia_turns_total", tenant=tid, outcome="answered") == 1
    assert sample("tulia_turn_seconds_count") == seconds_before + 1
    with tenant_context(tenant.id):
        conversation_id = Conversation.objects.get().pk
    assert deliver_conversation(tenant.id, conversation_id) == 1
    with tenant_context(tenant.id):
        status = OutboundMessage.objects.get().status
    assert sample("tulia_messages_out_total", tenant=tid, status=status) == 1


def test_tool_calls_are_counted_by_outcome_with_their_duration(tenant) -> None:
    tool = "payment_get_methods"
    before = {
        outcome: sample("tulia_tool_calls_total", tool=tool, outcome=outcome)
        for outcome in ("ok", "refused")
    }
    timed_before = sample("tulia_tool_seconds_count", tool=tool)
    assert call_tool(tool, {"tenant_id": str(tenant.id), "request_id": "req-metrics"}).ok
    assert not call_tool(tool, {"tenant_id": "not-a-uuid"}).ok  # counted, though not audited
    assert sample("tulia_tool_calls_total", tool=tool, outcome="ok") == before["ok"] + 1
    assert sample("tulia_tool_calls_total", tool=tool, outcome="refused") == before["refused"] + 1
    assert sample("tulia_tool_seconds_count", tool=tool) == timed_before + 2


def test_a_settled_payment_counts_once_even_if_the_ipn_repeats(
    shop: Tenant,  # noqa: F811
    pesapal,  # noqa: F811
    make_order,  # noqa: F811
    post_callback,  # noqa: F811
) -> None:
    labels = {"provider": "pesapal_card", "outcome": "paid"}
    before = sample("tulia_payment_outcomes_total", **labels)
    order = make_order(shop, 1500)
    payment = create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1500))
    pesapal.settle(payment.provider_reference, paid=True, notify=False)
    ipn = pesapal_fixture("ipn_post.json", **{FIXTURE_TRACKING_ID: payment.provider_reference})
    for _ in range(2):
        assert post_callback(shop, "pesapal_ipn", ipn).status_code == 200
    assert payment_of(shop, payment.pk).status == PaymentStatus.PAID
    assert sample("tulia_payment_outcomes_total", **labels) == before + 1


@pytest.fixture
def own_queue() -> Iterator[str]:
    """A default queue no worker consumes, so enqueued tasks stay put to be counted."""
    conf = celery_app.conf
    before = (conf.task_default_queue, conf.task_always_eager)
    name = f"metrics-test-{uuid4().hex[:12]}"
    conf.task_default_queue, conf.task_always_eager = name, False
    try:
        yield name
    finally:
        conf.task_default_queue, conf.task_always_eager = before
        client_for(gauges.broker_url()).delete(name)


def test_metrics_shows_the_celery_queue_depth(client: Client, own_queue: str) -> None:
    for _ in range(3):
        sweep_pending_stk.delay()
    samples = scrape(client)
    assert samples[("tulia_celery_queue_length", (("queue", own_queue),))] == 3


def _ticket(tenant: Tenant, status: str) -> None:
    from tests.handoff.conftest import make_conversation

    conversation = make_conversation(tenant)
    with tenant_context(tenant.id) as tid:
        HandoffTicket.objects.create(
            tenant_id=tid,
            conversation=conversation,
            customer_id=conversation.customer_id,
            category=Category.HUMAN_REQUEST,
            reason="asked for a person",
            status=status,
        )


def test_metrics_shows_each_tenants_waiting_handoff_tickets(
    client: Client, tenant: Tenant, stranger: Tenant
) -> None:
    for status in (TicketStatus.OPEN, TicketStatus.OPEN, TicketStatus.ASSIGNED):
        _ticket(tenant, status)
    samples = scrape(client)
    assert samples[("tulia_handoff_queue_length", (("tenant", str(tenant.id)),))] == 2
    assert samples[("tulia_handoff_queue_length", (("tenant", str(stranger.id)),))] == 0


def test_gauges_are_served_in_multiprocess_mode(
    client: Client, tenant: Tenant, own_queue: str, tmp_path: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    _ticket(tenant, TicketStatus.OPEN)
    sweep_pending_stk.delay()
    samples = scrape(client)
    assert samples[("tulia_celery_queue_length", (("queue", own_queue),))] == 1
    assert samples[("tulia_handoff_queue_length", (("tenant", str(tenant.id)),))] == 1


def test_a_dead_broker_drops_only_the_queue_gauge(
    client: Client, tenant: Tenant, settings: Any
) -> None:
    settings.CELERY_BROKER_URL = "redis+socket:///nonexistent/tulia-dead-broker.sock"
    names = {name for name, _ in scrape(client)}
    assert "tulia_celery_queue_length" not in names
    assert "tulia_handoff_queue_length" in names
