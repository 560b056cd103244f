"""Base admin for tenant-owned models: a tenant's staff see and change only their rows.

Scoping happens here (querysets, foreign-key choices, the tenant field, permissions)
and again underneath in PostgreSQL RLS, which the middleware's tenant context enables.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django import forms
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest

from tenants.models import Tenant, TenantMembership, TenantOwnedModel
from tenants.roles import RoleCheckedActions, request_role

__all__ = ["ReadOnlyScopedAdmin", "TenantScopedAdmin", "request_role", "request_tenant_id"]


def request_tenant_id(request: HttpRequest) -> UUID | None:
    membership: TenantMembership | None = getattr(request, "tenant_membership", None)
    return membership.tenant_id if membership else None


class TenantScopedAdmin(RoleCheckedActions):
    """Owners may change everything of their tenant; agents only what agent_can_change."""

    agent_can_change: bool = False
    agent_can_add: bool = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        tenant_id = request_tenant_id(request)
        return queryset.filter(tenant_id=tenant_id) if tenant_id else queryset.none()

    def formfield_for_foreignkey(
        self, db_field: models.ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField | None:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if field is None or request.user.is_superuser:
            return field
        tenant_id = request_tenant_id(request)
        related = db_field.related_model
        if related is Tenant and tenant_id is not None:
            field.queryset = Tenant.objects.filter(pk=tenant_id)
            field.initial = tenant_id
            field.disabled = True  # kept in the form so unique checks see the tenant
        elif isinstance(related, type) and issubclass(related, TenantOwnedModel):
            field.queryset = related.objects.filter(tenant_id=tenant_id)  # type: ignore[attr-defined]
        return field

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not request.user.is_superuser:
            obj.tenant_id = request_tenant_id(request)
        super().save_model(request, obj, form, change)

    # --- permissions by membership role (Django model perms are not used for tenants) ---
    def _is_member(self, request: HttpRequest) -> bool:
        return request_tenant_id(request) is not None

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser or self._is_member(request))

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        role = request_role(request)
        return bool(
            request.user.is_superuser
            or role == TenantMembership.Role.OWNER
            or (role == TenantMembership.Role.AGENT and self.agent_can_add)
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        role = request_role(request)
        return bool(
            request.user.is_superuser
            or role == TenantMembership.Role.OWNER
            or (role == TenantMembership.Role.AGENT and self.agent_can_change)
        )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(
            request.user.is_superuser or request_role(request) == TenantMembership.Role.OWNER
        )


class ReadOnlyScopedAdmin(TenantScopedAdmin):
    """For records nobody edits by hand (audit logs, provider events, message history)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
