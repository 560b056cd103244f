"""Return policy (owners edit it) and the log of return/refund requests with verdicts;
staff approve or reject a request, record the item back and refund it from here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from tenants.accessors import tenant_scope
from tenants.admin_scoping import TenantScopedAdmin, request_tenant_id
from tenants.roles import role_action
from tulia.commerce.models import Category
from tulia.console.row_fields import ReturnRulesField
from tulia.errors import DomainError
from tulia.returns import decisions
from tulia.returns.models import ReturnPolicy, ReturnRequest


@admin.register(ReturnPolicy)
class ReturnPolicyAdmin(TenantScopedAdmin):
    list_display = (
        "__str__", "return_days", "refund_days", "refund_delivery_fee", "max_returns_30d",
        "updated_at",
    )  # fmt: skip
    readonly_fields = ("version",)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "category_rules" in form.base_fields:
            rules = ReturnRulesField(
                label=_("Rules for some categories"),
                help_text=_(
                    "A category listed here has its own days to ask; blank days: as the shop."
                    " A category that never comes back refuses every return."
                ),
            )
            tenant_id = obj.tenant_id if obj is not None else request_tenant_id(request)
            if tenant_id is not None:
                with tenant_scope(tenant_id) as tid:
                    shop = Category.objects.filter(tenant_id=tid).order_by("name")
                    rules.set_categories(list(shop.values_list("slug", "name")))
            form.base_fields["category_rules"] = rules
        return form


def _actor(request: HttpRequest) -> str:
    return f"staff:{request.user.get_username()}"


def _each(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    queryset: QuerySet[ReturnRequest],
    step: Callable[[ReturnRequest], object],
    done: str,
) -> None:
    changed = 0
    for found in queryset:
        try:
            changed += bool(step(found))
        except DomainError as exc:
            modeladmin.message_user(request, f"{found}: {exc.message}", messages.ERROR)
    modeladmin.message_user(request, f"{changed} {done}.", messages.SUCCESS)


@role_action("returns.request.approve", description="Approve the return")
def approve(modeladmin: Any, request: HttpRequest, queryset: QuerySet[ReturnRequest]) -> None:
    actor = _actor(request)
    _each(
        modeladmin, request, queryset,
        lambda r: decisions.decide(r.tenant_id, r.pk, approve=True, actor=actor), "approved",
    )  # fmt: skip


@role_action("returns.request.reject", description="Reject the return")
def reject(modeladmin: Any, request: HttpRequest, queryset: QuerySet[ReturnRequest]) -> None:
    actor = _actor(request)
    _each(
        modeladmin, request, queryset,
        lambda r: decisions.decide(r.tenant_id, r.pk, approve=False, actor=actor), "rejected",
    )  # fmt: skip


@role_action("returns.request.receive", description="Record the item as received back")
def receive(modeladmin: Any, request: HttpRequest, queryset: QuerySet[ReturnRequest]) -> None:
    actor = _actor(request)
    _each(
        modeladmin, request, queryset,
        lambda r: decisions.mark_received(r.tenant_id, r.pk, actor=actor), "received",
    )  # fmt: skip


@role_action("returns.request.refund", description="Refund by the method paid")
def refund(modeladmin: Any, request: HttpRequest, queryset: QuerySet[ReturnRequest]) -> None:
    actor = _actor(request)
    _each(
        modeladmin, request, queryset,
        lambda r: decisions.refund(r.tenant_id, r.pk, actor=actor), "refunds asked for",
    )  # fmt: skip


@admin.register(ReturnRequest)
class ReturnRequestAdmin(TenantScopedAdmin):
    list_display = (
        "id", "order", "action", "verdict_reason", "decision", "received_at", "ticket",
        "created_at",
    )  # fmt: skip
    list_filter = ("action", "decision")
    readonly_fields = (
        "order", "customer", "action", "skus", "reason_text", "verdict", "ticket",
        "request_id", "decision", "decided_by", "decided_at", "received_at", "created_at",
    )  # fmt: skip
    actions = (approve, reject, receive, refund)

    @admin.display(description="verdict")
    def verdict_reason(self, obj: ReturnRequest) -> str:
        return str(obj.verdict.get("reason", ""))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
