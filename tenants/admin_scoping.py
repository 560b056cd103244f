"""Base admin for tenant-owned models: a tenant's staff see and change only their rows.

Scoping happens here (querysets, foreign-key choices, the tenant field, permissions)
and again underneath in PostgreSQL RLS, which the middleware's tenant context enables.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.db import IntegrityError, models
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tenants.models import Tenant, TenantMembership, TenantOwnedModel
from tenants.roles import RoleCheckedActions, is_owner, request_role

__all__ = ["ReadOnlyScopedAdmin", "TenantScopedAdmin", "request_role", "request_tenant_id"]


def request_tenant_id(request: HttpRequest) -> UUID | None:
    membership: TenantMembership | None = getattr(request, "tenant_membership", None)
    return membership.tenant_id if membership else None


UNIQUE_CONFLICT = (
    "Not saved: a value you entered is already in use (a phone number, login or name that"
    " must be unique). Change it and try again."
)


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

    def get_list_display(self, request: HttpRequest) -> Any:
        # A shop's staff see their own shop's rows only: a column naming it says nothing.
        shown = super().get_list_display(request)
        return shown if request.user.is_superuser else tuple(f for f in shown if f != "tenant")

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
            field.label = _("Shop")
        elif isinstance(related, type) and issubclass(related, TenantOwnedModel):
            field.queryset = related.objects.filter(tenant_id=tenant_id)  # type: ignore[attr-defined]
        elif related is get_user_model():
            # Logins are platform-wide: offer only this shop's own staff, never others'.
            staff = get_user_model().objects
            field.queryset = (
                staff.filter(tenant_membership__tenant_id=tenant_id) if tenant_id else staff.none()
            )
        return field

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # Some unique values are unique across shops (a sender's number, a login), and RLS
        # hides the other shop's row from the form's own unique check: the database has
        # the last word. Its refusal is the shop's input error, not a server error.
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except IntegrityError:
            messages.error(request, UNIQUE_CONFLICT)
            return HttpResponseRedirect(request.get_full_path())

    def action_checkbox(self, obj: Any) -> SafeString:
        # Django renders each row's box through the form widget templates: a sixth of a
        # 50-row list's CPU time. The same HTML, written out.
        label = format_html(gettext("Select this object for an action - {}"), str(obj))
        return format_html(
            '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
            helpers.ACTION_CHECKBOX_NAME,
            str(obj.pk),
            label,
        )

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
        return is_owner(request)


class ReadOnlyScopedAdmin(TenantScopedAdmin):
    """For records nobody edits by hand (audit logs, provider events, message history)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
