"""Read-only audit of tool calls, per tenant."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tenants.admin_scoping import TenantScopedAdmin
from tools.models import ToolCall


@admin.register(ToolCall)
class ToolCallAdmin(TenantScopedAdmin):
    list_display = ("created_at", "tool", "outcome", "error_code", "duration_ms", "request_id")
    list_filter = ("tool", "outcome")
    search_fields = ("request_id",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in ToolCall._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
