"""End to end with a real Celery worker on the real Redis broker: order, parallelism,
broker outage and a worker killed mid-turn."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tenants.context import tenant_context
from tenants.keys import tenant_key
from tulia.celery import app as celery_app
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.redis_client import get_redis
from tulia.whatsapp import sweeper

from .conftest import event, running_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.process]
ECHO = "tests.gateway.handlers.echo"
CONSOLE = "tulia.whatsapp.backends.console.ConsoleBackend"


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met within the timeout")


def _sent_replies(tenant_id, phone: str | None = None) -> list[str]:
    with tenant_context(tenant_id):
        rows = OutboundMessage.objects.filter(status=OutboundMessage.Status.SENT)
        if phone:
            rows = rows.filter(conversation__customer__phone_e164=phone)
        return list(rows.order_by("id").values_list("body", flat=True))


def _texts(form_count: int, phone: str = "+254712345678", prefix: str = "m") -> list[dict]:
    digits = phone[-4:]
    return [
        event(
            "inbound_text",
            Body=f"{prefix}{n}",
            From=f"whatsapp:{phone}",
            MessageSid=f"SM{digits}{n:028x}",
        )
        for n in range(1, form_count + 1)
    ]


@pytest.fixture
def echo_turns(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.TULIA_TURN_HANDLER = ECHO
    settings.TULIA_WHATSAPP_BACKEND = CONSOLE
    monkeypatch.setenv("TEST_ECHO_DELAY", "0.3")


def _max_overlap(tenant_id, scope: object) -> int:
    key = tenant_key(tenant_id, "test", "max-overlap", scope)
    return int(get_redis().get(key) or 0)


def test_three_quick_messages_get_one_reply(
    post_signed, tenant, echo_turns, celery_worker, settings
) -> None:
    # Each message's turn is scheduled a second after it (a Celery countdown): no
    # worker sleeps, the last message's task answers all three, the others step aside.
    settings.TULIA_TURN_DEBOUNCE_SECONDS = 1.0
    for form in _texts(3):
        assert post_signed("inbound", form).status_code == 200
    wait_for(lambda: len(_sent_replies(tenant.id)) >= 1)
    time.sleep(1.5)  # every task's countdown has passed: nothing else may answer
    assert _sent_replies(tenant.id) == ["echo: m1 + m2 + m3"]
    with tenant_context(tenant.id):
        assert Conversation.objects.get().turn_count == 1
        assert set(InboundMessage.objects.values_list("status", flat=True)) == {"processed"}


def test_burst_of_five_is_processed_one_at_a_time_in_order(
    post_signed, tenant, echo_turns, celery_worker
) -> None:
    for form in _texts(5):
        assert post_signed("inbound", form).status_code == 200
    wait_for(lambda: len(_sent_replies(tenant.id)) == 5)
    assert _sent_replies(tenant.id) == [f"echo: m{n}" for n in range(1, 6)]
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get()
        processed = list(InboundMessage.objects.order_by("processed_at").values_list("body"))
    assert [body for (body,) in processed] == [f"m{n}" for n in range(1, 6)]
    assert _max_overlap(tenant.id, conversation.pk) == 1
    assert conversation.turn_count == 5


def test_two_customers_are_served_in_parallel(
    post_signed, tenant, echo_turns, celery_worker
) -> None:
    first, second = _texts(3, "+254712345678", "a"), _texts(3, "+254722000111", "b")
    for pair in zip(first, second, strict=True):
        for form in pair:
            assert post_signed("inbound", form).status_code == 200
    wait_for(lambda: len(_sent_replies(tenant.id)) == 6)
    assert _sent_replies(tenant.id, "+254712345678") == ["echo: a1", "echo: a2", "echo: a3"]
    assert _sent_replies(tenant.id, "+254722000111") == ["echo: b1", "echo: b2", "echo: b3"]
    # Each customer's turns ran one at a time, but the two customers' turns overlapped.
    with tenant_context(tenant.id):
        conversations = list(Conversation.objects.values_list("pk", flat=True))
    assert [_max_overlap(tenant.id, pk) for pk in conversations] == [1, 1]
    assert _max_overlap(tenant.id, "all") == 2


@pytest.fixture
def dead_broker() -> Iterator[Callable[[], None]]:
    """Point the Celery producer at a socket nobody listens on; yields a restorer."""
    original = celery_app.conf.broker_url

    def point_at(url: str) -> None:
        celery_app.conf["broker_url"] = url
        celery_app._after_fork()  # type: ignore[attr-defined]  # drops pooled connections

    def restore() -> None:
        point_at(original)

    point_at("redis+socket:///nonexistent/tulia-dead-broker.sock")
    try:
        yield restore
    finally:
        restore()


def test_broker_down_message_is_stored_and_processed_when_it_is_back(
    post_signed, tenant, echo_turns, dead_broker, settings
) -> None:
    settings.TULIA_SWEEP_AGE_SECONDS = 0.01
    started = time.monotonic()
    (form,) = _texts(1)
    assert post_signed("inbound", form).status_code == 200
    assert time.monotonic() - started < 2.0  # the webhook did not hang on the broker
    with tenant_context(tenant.id):
        assert InboundMessage.objects.get().status == InboundMessage.Status.RECEIVED
    dead_broker()
    celery_app.control.purge()
    with running_worker():
        time.sleep(0.05)
        assert sweeper.sweep().inbound_threads == 1
        wait_for(lambda: _sent_replies(tenant.id) == ["echo: m1"])
    with tenant_context(tenant.id):
        assert InboundMessage.objects.get().status == InboundMessage.Status.PROCESSED


def test_stranger_turns_do_not_touch_tenant_threads(
    post_signed, tenant, stranger, echo_turns, celery_worker
) -> None:
    stranger_form = event(
        "inbound_text", To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32, Body="jambo"
    )
    assert post_signed("inbound", stranger_form, token="token-b-987654321").status_code == 200
    wait_for(lambda: _sent_replies(stranger.id) == ["echo: jambo"])
    assert _sent_replies(tenant.id) == []
    with tenant_context(tenant.id):
        assert not Conversation.objects.exists()
