"""Per-tenant LLM cost metering: daily aggregates, prices, isolation and admin."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection

from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.metering.models import LlmUsage
from tulia.metering.pricing import cost_usd
from tulia.metering.usage import record_llm_call


def test_cost_uses_the_longest_matching_model_prefix() -> None:
    assert cost_usd("gpt-4o-mini-2024-07-18", 1_000_000, 0) == Decimal("0.15")
    assert cost_usd("gpt-4o", 0, 1_000_000) == Decimal("10.00")
    assert cost_usd("some-local-model", 5000, 5000) == Decimal("0")


@pytest.mark.django_db
def test_calls_accumulate_in_one_daily_row(tenant) -> None:
    for _ in range(3):
        record_llm_call(
            tenant.id,
            node="intent_classify",
            model="gpt-4o-mini",
            prompt_tokens=1000,
            completion_tokens=100,
        )
    record_llm_call(tenant.id, node="intent_classify", model="gpt-4o-mini", ok=False)
    with tenant_context(tenant.id):
        row = LlmUsage.objects.get()
    assert (row.calls, row.failures, row.prompt_tokens, row.completion_tokens) == (4, 1, 3000, 300)
    assert row.cost_usd == Decimal("0.000630")


@pytest.mark.django_db
def test_usage_is_invisible_to_another_tenant(tenant, stranger) -> None:
    record_llm_call(tenant.id, node="support_rag_answer", model="gpt-4o-mini", prompt_tokens=10)
    with tenant_context(stranger.id):
        assert LlmUsage.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_parallel_calls_are_all_counted(tenant) -> None:
    def call(_: int) -> None:
        try:
            record_llm_call(tenant.id, node="intent_classify", model="gpt-4o-mini", prompt_tokens=1)
        finally:
            connection.close()

    record_llm_call(tenant.id, node="intent_classify", model="gpt-4o-mini", prompt_tokens=1)
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(call, range(20)))
    with tenant_context(tenant.id):
        row = LlmUsage.objects.get()
    assert row.calls == 21
    assert row.prompt_tokens == 21


@pytest.mark.django_db
def test_owner_sees_own_costs_in_admin(client, tenant, stranger) -> None:
    record_llm_call(tenant.id, node="mine_node", model="gpt-4o-mini", prompt_tokens=5)
    record_llm_call(stranger.id, node="their_node", model="gpt-4o-mini", prompt_tokens=5)
    add_staff_member(tenant.id, username="meter_owner", password="x-Pass-1234", role="owner")
    client.login(username="meter_owner", password="x-Pass-1234")
    page = client.get("/admin/metering/llmusage/").content.decode()
    assert "mine_node" in page
    assert "their_node" not in page
