"""Admin: each tenant sees its own LLM usage and cost; nobody edits it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tenants.admin_scoping import TenantScopedAdmin
from tulia.metering.models import LlmUsage


@admin.register(LlmUsage)
class LlmUsageAdmin(TenantScopedAdmin):
    list_display = (
        "day",
        "node",
        "model",
        "calls",
        "failures",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "tenant",
    )
    list_filter = ("day", "model", "node")
    date_hierarchy = "day"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)
