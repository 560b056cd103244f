"""Per-tenant LLM usage, aggregated per day, model and node, for cost metering."""

from __future__ import annotations

from decimal import Decimal

from django.db import models

from tenants.models import TenantOwnedModel


class LlmUsage(TenantOwnedModel):
    day = models.DateField()
    model = models.CharField(max_length=80)
    node = models.CharField(max_length=60)
    calls = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))

    class Meta:
        verbose_name = "LLM usage"
        verbose_name_plural = "LLM usage"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "day", "model", "node"], name="llm_usage_one_row_per_day"
            )
        ]
        indexes = [models.Index(fields=["tenant", "-day"], name="llm_usage_recent")]

    def __str__(self) -> str:
        return f"{self.day} {self.node} ({self.model})"
