"""Refunds as staff see them: where each stands, and the ones waiting for a person
(the provider accepted them and never said more; see payments/refund_checks.py)."""

from __future__ import annotations

from django.contrib import admin

from payments.models import Refund
from tenants.admin_scoping import ReadOnlyScopedAdmin


@admin.register(Refund)
class RefundAdmin(ReadOnlyScopedAdmin):
    # Money records change only through payments/refunds.py, never by hand.
    list_display = (
        "created_at", "order", "amount", "method", "status", "needs_attention", "checks",
        "result_note",
    )  # fmt: skip
    list_filter = ("status", "method", "needs_attention")
    search_fields = ("order__reference", "provider_reference", "idempotency_key")
    readonly_fields = [f.name for f in Refund._meta.fields]
