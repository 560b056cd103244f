"""Record one LLM call against its tenant: a daily aggregate row plus Prometheus counters."""

from __future__ import annotations

from uuid import UUID

from django.db.models import F
from django.utils import timezone

from tenants.context import tenant_context
from tulia.metering.models import LlmUsage
from tulia.metering.pricing import cost_usd
from tulia.observability import metrics


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
    with tenant_context(tenant_id) as tid:
        row, _ = LlmUsage.objects.get_or_create(
            tenant_id=tid, day=timezone.localdate(), model=model[:80], node=node[:60]
        )
        # F() updates add atomically in SQL, so parallel workers never lose a call.
        LlmUsage.objects.filter(pk=row.pk).update(
            calls=F("calls") + 1,
            failures=F("failures") + (0 if ok else 1),
            prompt_tokens=F("prompt_tokens") + prompt_tokens,
            completion_tokens=F("completion_tokens") + completion_tokens,
            cost_usd=F("cost_usd") + price,
        )
    tenant = str(tenant_id)
    metrics.LLM_CALLS.labels(tenant=tenant, node=node, outcome="ok" if ok else "error").inc()
    metrics.LLM_TOKENS.labels(tenant=tenant, direction="prompt").inc(prompt_tokens)
    metrics.LLM_TOKENS.labels(tenant=tenant, direction="completion").inc(completion_tokens)
