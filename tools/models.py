"""The audit trail of tool calls: one row per call, success or failure."""

from __future__ import annotations

from django.db import models

from tenants.models import TenantOwnedModel


class ToolCall(TenantOwnedModel):
    class Outcome(models.TextChoices):
        OK = "ok"
        ERROR = "error"
        REFUSED = "refused"  # wrong tenant or invalid input: the body never ran

    tool = models.CharField(max_length=64)
    request_id = models.CharField(max_length=64)
    conversation_id = models.BigIntegerField(null=True, blank=True)
    inputs = models.JSONField(default=dict)
    outputs = models.JSONField(default=dict)
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    error_code = models.CharField(max_length=64, blank=True)
    duration_ms = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "request_id"], name="toolcall_request"),
            models.Index(fields=["tenant", "conversation_id", "created_at"], name="toolcall_conv"),
            models.Index(fields=["tenant", "tool", "-created_at"], name="toolcall_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.tool} ({self.outcome})"
