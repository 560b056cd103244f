"""The shop page's settings and its visit counters in the shop's admin, tenant-scoped."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from tenants.admin_scoping import TenantScopedAdmin, request_tenant_id
from tenants.models import Tenant
from tulia.storefront import visits
from tulia.storefront.models import ShopProfile, SourceVisits
from tulia.text import format_money


@admin.register(ShopProfile)
class ShopProfileAdmin(TenantScopedAdmin):
    list_display = ("__str__", "is_published", "location")


@admin.register(SourceVisits)
class SourceVisitsAdmin(TenantScopedAdmin):
    """Read-only: the page writes these counts, staff read them."""

    list_display = ("day", "source", "visits", "order_taps")
    list_filter = ("source",)
    date_hierarchy = "day"
    ordering = ("-day", "source")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Above the per-day rows: per source, visits and taps beside the orders and
        revenue that began on the shop page, over the shop's last 30 days."""
        extra = dict(extra_context or {}, stats_days=visits.STATS_DAYS, by_source=[])
        tenant_id = request_tenant_id(request)
        if tenant_id is not None:
            tenant = Tenant.objects.get(pk=tenant_id)
            extra["stats_timezone"] = tenant.timezone
            extra["by_source"] = [
                {**asdict(row), "revenue_text": format_money(row.revenue)}
                for row in visits.by_source(tenant)
            ]
        return super().changelist_view(request, extra)
