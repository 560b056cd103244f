"""Redis down at the webhook, and the app's Postgres connection killed mid-turn.

Real Redis, Postgres and Celery; the faults are injected from outside our code: a dead
socket for Redis and the broker, `pg_terminate_backend` for Postgres.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import Error as DatabaseError
from django.db import connection, connections

from tenants.context import tenant_context
from tests.gateway.conftest import event, running_worker
from tests.gateway.placeholder import acknowledge
from tests.gateway.test_worker import wait_for
from tulia.celery import app as celery_app
from tulia.conversations import pipeline
from tulia.conversations.models import InboundMessage, OutboundMessage
from tulia.conversations.turns import TurnInput, TurnOutput
from tulia.whatsapp import sweeper

pytestmark = pytest.mark.django_db(transaction=True)
PLACEHOLDER = "tests.gateway.placeholder.acknowledge"
DEAD_REDIS = "unix:///nonexistent/tulia-dead-redis.sock"


@pytest.fixture(autouse=True)
def quick_gateway(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.TULIA_TURN_HANDLER = PLACEHOLDER
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    settings.TULIA_SWEEP_AGE_SECONDS = 0.01
    monkeypatch.setenv("TULIA_TURN_HANDLER", PLACEHOLDER)


def _message(tenant_id) -> InboundMessage:
    with tenant_context(tenant_id):
        return InboundMessage.objects.get()


def _replies(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.values_list("body", flat=True))


def _sweep_until_replied(tenant_id) -> None:
    def replied() -> bool:
        sweeper.sweep()
        return _message(tenant_id).status == InboundMessage.Status.PROCESSED

    celery_app.control.purge()
    with running_worker():
        wait_for(replied)


def test_redis_down_webhook_stores_answers_and_work_resumes(
    post_signed, tenant, dead_broker, settings
) -> None:
    redis_url = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS  # the rate limiter's Redis, with the broker above
    assert post_signed("inbound", event("inbound_text")).status_code == 200
    assert _message(tenant.id).status == InboundMessage.Status.RECEIVED
    settings.REDIS_URL = redis_url
    dead_broker()  # Redis is back
    _sweep_until_replied(tenant.id)
    assert len(_replies(tenant.id)) == 1


def kill_own_connection_then_acknowledge(turn: TurnInput) -> TurnOutput:
    """A turn handler during which Postgres drops the app's connection (as a restart
    or failover would), terminated from a second connection."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    killer = connections.create_connection("default")
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        killer.close()
    return acknowledge(turn)


def test_postgres_connection_killed_mid_turn_is_retried_with_one_reply(
    post_signed, tenant, dead_broker, settings
) -> None:
    assert post_signed("inbound", event("inbound_text")).status_code == 200
    message_id = _message(tenant.id).pk
    settings.TULIA_TURN_HANDLER = f"{__name__}.kill_own_connection_then_acknowledge"
    with pytest.raises(DatabaseError):
        pipeline.process_inbound(tenant.id, message_id)
    # What Celery's Django fixup does before a worker's next task.
    connection.close_if_unusable_or_obsolete()
    assert _replies(tenant.id) == []  # the killed turn wrote nothing
    assert _message(tenant.id).status == InboundMessage.Status.PROCESSING
    settings.TULIA_TURN_HANDLER = PLACEHOLDER
    settings.TULIA_TURN_LOCK_LEASE = 0.5  # so the sweeper sees the turn as abandoned
    dead_broker()
    _sweep_until_replied(tenant.id)
    assert len(_replies(tenant.id)) == 1
    assert _message(tenant.id).attempts == 2
