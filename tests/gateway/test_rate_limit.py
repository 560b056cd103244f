"""Rate limits at the webhook: over the limit a message is stored and answered 200, but
no turn runs for it, and the customer gets one polite notice per window."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from tenants.context import tenant_context
from tulia import clock
from tulia.conversations import pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.ratelimit import WINDOW_SECONDS
from tulia.text import say
from tulia.whatsapp import sweeper

from .conftest import TOKEN_A, TOKEN_B, event

# Redis counters outlive the test database, but they are keyed by tenant id, and every
# test creates its tenants afresh.
pytestmark = pytest.mark.django_db
LIMIT = 3
DEAD_REDIS = "unix:///nonexistent/tulia-dead-redis.sock"


@pytest.fixture(autouse=True)
def small_limit(settings) -> None:
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = LIMIT


@pytest.fixture(autouse=True)
def one_window() -> Iterator[None]:
    """A test's messages must land in one window: the clock is held in the middle of one."""
    with clock.held_at(1_800_000_000 + WINDOW_SECONDS / 2):
        yield


def _post(post_signed, n: int, phone: str = "+254712345678", **kw: str) -> None:
    form = event(
        "inbound_text",
        Body=f"m{n}",
        From=f"whatsapp:{phone}",
        MessageSid=f"SM{int(phone[1:]):020x}{n:012x}",
        **kw,
    )
    token = TOKEN_B if kw else TOKEN_A  # overrides here mean the stranger's number
    assert post_signed("inbound", form, token=token).status_code == 200


def _run_turns(tenant_id) -> int:
    """What a worker would do for each stored message: 0 for the ones held back."""
    with tenant_context(tenant_id):
        ids = list(InboundMessage.objects.order_by("id").values_list("pk", flat=True))
    return sum(pipeline.process_inbound(tenant_id, pk) for pk in ids)


def _statuses(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(InboundMessage.objects.order_by("id").values_list("status", flat=True))


def _replies(tenant_id) -> list[str]:
    with tenant_context(tenant_id):
        return list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))


def _limited_count(tenant_id) -> float:
    labels = {"tenant": str(tenant_id), "scope": "customer"}
    return REGISTRY.get_sample_value("tulia_rate_limited_total", labels) or 0.0


def test_flood_gets_limit_turns_and_exactly_one_notice(post_signed, tenant):
    for n in range(LIMIT + 3):
        _post(post_signed, n)
    assert _run_turns(tenant.id) == LIMIT
    assert _statuses(tenant.id) == ["processed"] * LIMIT + ["rate_limited"] * 3
    replies = _replies(tenant.id)
    assert replies.count(say("gateway.rate_limit", "en")) == 1
    assert len(replies) == LIMIT + 1
    assert _limited_count(tenant.id) == 3


def test_held_back_messages_are_never_swept_into_a_turn(post_signed, tenant, settings):
    settings.TULIA_SWEEP_AGE_SECONDS = 0.001
    for n in range(LIMIT + 2):
        _post(post_signed, n)
    _run_turns(tenant.id)
    assert sweeper.sweep().inbound_threads == 0
    with tenant_context(tenant.id):
        held = InboundMessage.objects.filter(status="rate_limited")
        assert held.count() == 2
        assert all(message.conversation_id for message in held)  # visible in the thread


def test_notice_is_in_the_customer_language(post_signed, stranger):
    for n in range(LIMIT + 2):
        _post(post_signed, n, To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32)
    assert _replies(stranger.id) == [say("gateway.rate_limit", "sw")]  # the shop's default


def test_duplicate_deliveries_do_not_count(post_signed, tenant):
    for _ in range(LIMIT + 3):
        _post(post_signed, 0)  # Twilio retrying one message
    _post(post_signed, 1)
    assert _statuses(tenant.id) == ["received", "received"]
    assert _replies(tenant.id) == []


def test_other_customer_and_other_tenant_are_unaffected(post_signed, tenant, stranger):
    for n in range(LIMIT + 1):
        _post(post_signed, n)
    _post(post_signed, 100, "+254722000111")
    _post(post_signed, 101, To="whatsapp:+254711000002", AccountSid="AC" + "b" * 32)
    assert _statuses(tenant.id) == ["received"] * LIMIT + ["rate_limited", "received"]
    assert _statuses(stranger.id) == ["received"]
    assert _replies(stranger.id) == []


def test_redis_down_fails_open(post_signed, tenant, settings):
    live = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    for n in range(LIMIT + 1):
        _post(post_signed, n)
    assert _statuses(tenant.id) == ["received"] * (LIMIT + 1)
    # Redis is back for the turns: their leases use the same (one) client.
    settings.REDIS_URL = live
    assert _run_turns(tenant.id) == LIMIT + 1
    assert say("gateway.rate_limit", "en") not in _replies(tenant.id)


@pytest.mark.parametrize("status", ["waiting", "agent_active"])
def test_no_notice_while_a_human_owns_the_conversation(post_signed, tenant, status):
    _post(post_signed, 0)
    _run_turns(tenant.id)  # the first turn opens the conversation
    with tenant_context(tenant.id):
        conversation = Conversation.objects.get()
        Conversation.objects.filter(pk=conversation.pk).update(status=status)
        replies_before = OutboundMessage.objects.count()
    for n in range(1, LIMIT + 2):
        _post(post_signed, n)
    assert _statuses(tenant.id)[LIMIT:] == ["rate_limited"] * 2
    assert len(_replies(tenant.id)) == replies_before  # the bot said nothing at all
    with tenant_context(tenant.id):
        held = InboundMessage.objects.filter(status="rate_limited")
        assert {message.conversation_id for message in held} == {conversation.pk}
    assert _limited_count(tenant.id) == 2
