"""Rate limits per customer per tenant, and per tenant (Property 9's counting part)."""

from __future__ import annotations

import uuid

from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tulia.ratelimit import WINDOW_SECONDS, check_inbound

NOW = 1_800_000_000.0


def _tenant() -> str:
    return str(uuid.uuid4())


def test_customer_over_the_limit_is_refused_and_told_once(settings) -> None:
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 3
    tenant = _tenant()
    verdicts = [check_inbound(tenant, "+254712000001", now=NOW) for _ in range(6)]
    assert [v.allowed for v in verdicts] == [True, True, True, False, False, False]
    assert [v.notify for v in verdicts[3:]] == [True, False, False]
    assert verdicts[3].scope == "customer"


def test_a_new_window_starts_fresh(settings) -> None:
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1
    tenant = _tenant()
    assert check_inbound(tenant, "+254712000002", now=NOW).allowed
    assert not check_inbound(tenant, "+254712000002", now=NOW).allowed
    assert check_inbound(tenant, "+254712000002", now=NOW + WINDOW_SECONDS).allowed


def test_same_number_at_another_tenant_has_its_own_budget(settings) -> None:
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1
    first, second = _tenant(), _tenant()
    assert check_inbound(first, "+254712000003", now=NOW).allowed
    assert not check_inbound(first, "+254712000003", now=NOW).allowed
    assert check_inbound(second, "+254712000003", now=NOW).allowed


def test_tenant_limit_applies_across_customers(settings) -> None:
    settings.TULIA_RATE_TENANT_PER_MINUTE = 2
    tenant = _tenant()
    results = [check_inbound(tenant, f"+2547120001{i:02d}", now=NOW) for i in range(3)]
    assert [r.allowed for r in results] == [True, True, False]
    assert results[2].scope == "tenant"


@settings(max_examples=examples(100), deadline=None)
@given(
    limit=st.integers(min_value=1, max_value=8),
    senders=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=30),
)
def test_each_customer_gets_exactly_its_limit_and_one_notice(limit, senders) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 9: Conversation Governance."""
    tenant = _tenant()
    allowed: dict[str, int] = {}
    notices: dict[str, int] = {}
    with override_settings(TULIA_RATE_CUSTOMER_PER_MINUTE=limit):
        for sender in senders:
            verdict = check_inbound(tenant, sender, now=NOW)
            allowed[sender] = allowed.get(sender, 0) + verdict.allowed
            notices[sender] = notices.get(sender, 0) + verdict.notify
    for sender in set(senders):
        sent = senders.count(sender)
        assert allowed[sender] == min(sent, limit)
        assert notices[sender] == (1 if sent > limit else 0)
