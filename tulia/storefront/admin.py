"""The shop page's settings and its visit counters in the shop's admin, tenant-scoped."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tenants.admin_scoping import TenantScopedAdmin
from tulia.storefront.models import ShopProfile, SourceVisits


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
