"""Return policy (owners edit it) and the log of return/refund requests with verdicts."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from tenants.admin_scoping import TenantScopedAdmin
from tulia.returns.models import ReturnPolicy, ReturnRequest


@admin.register(ReturnPolicy)
class ReturnPolicyAdmin(TenantScopedAdmin):
    list_display = ("__str__", "return_days", "refund_days", "max_returns_30d", "updated_at")
    readonly_fields = ("version",)


@admin.register(ReturnRequest)
class ReturnRequestAdmin(TenantScopedAdmin):
    list_display = ("id", "order", "action", "verdict_reason", "ticket", "created_at")
    list_filter = ("action",)
    readonly_fields = (
        "order", "customer", "action", "skus", "reason_text", "verdict", "ticket",
        "request_id", "created_at",
    )  # fmt: skip

    @admin.display(description="verdict")
    def verdict_reason(self, obj: ReturnRequest) -> str:
        return str(obj.verdict.get("reason", ""))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
