"""Record one LLM call against its tenant: a daily aggregate row plus Prometheus counters."""

from __future__ import annotations

from uuid import UUID

from django.db import connection
from django.utils import timezone

from tenants.context import tenant_context
from tulia.metering.models import LlmUsage
from tulia.metering.pricing import cost_usd
from tulia.observability import metrics

_TABLE = LlmUsage._meta.db_table
_ADD_CALL = f"""
    INSERT INTO {_TABLE} (tenant_id, day, model, node, calls, failures,
                          prompt_tokens, completion_tokens, cost_usd)
    VALUES (%s, %s, %s, %s, 1, %s, %s, %s, %s)
    ON CONFLICT (tenant_id, day, model, node) DO UPDATE SET
        calls = {_TABLE}.calls + 1,
        failures = {_TABLE}.failures + EXCLUDED.failures,
        prompt_tokens = {_TABLE}.prompt_tokens + EXCLUDED.prompt_tokens,
        completion_tokens = {_TABLE}.completion_tokens + EXCLUDED.completion_tokens,
        cost_usd = {_TABLE}.cost_usd + EXCLUDED.cost_usd
"""  # noqa: S608 - the table name is our model's, every value is a parameter


def record_llm_call(
    tenant_id: UUID | str,
    *,
    node: str,
    model: str,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    ok: bool = True,
) -> None:
    """Add one call to today's row for (tenant, model, node); safe under concurrency."""
    price = cost_usd(model, prompt_tokens, completion_tokens)
    day, failed = timezone.localdate(), int(not ok)
    with tenant_context(tenant_id) as tid, connection.cursor() as cursor:
        # One upsert instead of get_or_create then update; the sums happen in SQL, so
        # parallel workers never lose a call.
        cursor.execute(
            _ADD_CALL,
            [tid, day, model[:80], node[:60], failed, prompt_tokens, completion_tokens, price],
        )
    tenant = str(tenant_id)
    metrics.LLM_CALLS.labels(tenant=tenant, node=node, outcome="ok" if ok else "error").inc()
    metrics.LLM_TOKENS.labels(tenant=tenant, direction="prompt").inc(prompt_tokens)
    metrics.LLM_TOKENS.labels(tenant=tenant, direction="completion").inc(completion_tokens)
