"""Django admin for shops, senders, staff, customers and the consent log."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from tenants.admin_scoping import (
    ReadOnlyScopedAdmin,
    TenantScopedAdmin,
    request_tenant_id,
)
from tenants.admin_settings import ShopSettingsForm, settings_fieldsets
from tenants.crypto import Secret
from tenants.models import ConsentEvent, Customer, Tenant, TenantMembership, WhatsAppSender
from tenants.roles import RoleCheckedActions, is_owner


@admin.register(Tenant)
class TenantAdmin(RoleCheckedActions):
    """A shop's settings page (owners: their own shop, in words; operators: every shop)."""

    form = ShopSettingsForm
    list_display = ("name", "slug", "status", "plan", "default_language", "created_at")
    search_fields = ("name", "slug")
    readonly_fields = ("created_at", "updated_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tenant]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(pk=request_tenant_id(request))

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = settings_fieldsets()
        if request.user.is_superuser:
            # The plan is billing and the slug is the shop's address: operators only.
            platform = ("slug", "status", "plan", "created_at", "updated_at")
            return ((_("Platform"), {"fields": platform}), *fieldsets)
        return fieldsets

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "plan" in form.base_fields:
            form.base_fields["plan"].help_text = _("Billing plan; it also picks the AI model.")
        return form

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser or request_tenant_id(request))

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Settings are the owner's page; an agent's menu never leads here.
        return is_owner(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_owner(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)


class SenderForm(forms.ModelForm):
    """The auth token is write-only: never rendered back, blank keeps the stored one."""

    twilio_auth_token = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("Stored encrypted. Leave blank to keep the current token."),
    )

    class Meta:
        model = WhatsAppSender
        fields = (
            "tenant",
            "phone_e164",
            "label",
            "twilio_account_sid",
            "twilio_auth_token",
            "is_active",
        )

    def clean_twilio_auth_token(self) -> Secret:
        token = self.cleaned_data.get("twilio_auth_token") or ""
        if token:
            return Secret(token)
        if self.instance.pk and self.instance.twilio_auth_token:
            return self.instance.twilio_auth_token
        raise forms.ValidationError("An auth token is required for a new sender.")


@admin.register(WhatsAppSender)
class WhatsAppSenderAdmin(TenantScopedAdmin):
    form = SenderForm
    list_display = ("phone_e164", "label", "masked_token", "is_active", "tenant")
    search_fields = ("phone_e164", "label")

    @admin.display(description="Auth token")
    def masked_token(self, obj: WhatsAppSender) -> str:
        return obj.twilio_auth_token.masked() if obj.twilio_auth_token else "—"


class StaffInviteForm(forms.ModelForm):
    """An owner adds staff by login name or e-mail; the login is created for this shop.

    Logins are platform-wide, so an existing one is never bound here: it either already
    works for this shop or belongs to someone else's, and the owner is told which.
    """

    login = forms.CharField(label="Username or e-mail", max_length=150)
    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        help_text=_("The new staff member's first password; they can change it after signing in."),
    )

    class Meta:
        model = TenantMembership
        fields = ("tenant", "role", "display_name")
        help_texts = {
            "display_name": _(
                "What customers read when this person joins their chat, "
                "e.g. 'Achieng'. Empty: their first name, else 'someone from our team'."
            )
        }

    def clean_login(self) -> str:
        login = self.cleaned_data["login"].strip()
        users = get_user_model().objects
        match = Q(username__iexact=login) | (Q(email__iexact=login) if "@" in login else Q())
        existing = users.filter(match).first()
        if existing is None:
            return login
        # Under this shop's tenant context only this shop's memberships are visible.
        if TenantMembership.objects.filter(user=existing).exists():
            raise forms.ValidationError("This login is already staff of your shop.")
        raise forms.ValidationError(
            "This username or e-mail is already in use by another account; choose another."
        )

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        login = self.cleaned_data.get("login", "")
        validate_password(password, get_user_model()(username=login))
        return password

    def create_login(self) -> Any:
        login = self.cleaned_data["login"]
        return get_user_model().objects.create_user(
            username=login,
            email=login if "@" in login else "",
            password=self.cleaned_data["password"],
            is_staff=True,
        )


@admin.register(TenantMembership)
class TenantMembershipAdmin(TenantScopedAdmin):
    list_display = ("user", "display_name", "role", "tenant", "created_at")
    list_filter = ("role",)
    search_fields = ("user__username",)

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None and not request.user.is_superuser:
            kwargs["form"] = StaffInviteForm
            kwargs["fields"] = ("tenant", "role", "login", "password", "display_name")
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None and not request.user.is_superuser:
            return ("tenant", "login", "password", "role", "display_name")
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        # Who a membership belongs to never changes: remove it and invite again instead.
        return (*fields, "user") if obj is not None and not request.user.is_superuser else fields

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if isinstance(form, StaffInviteForm):
            obj.user = form.create_login()
        super().save_model(request, obj, form, change)


@admin.register(Customer)
class CustomerAdmin(TenantScopedAdmin):
    agent_can_change = True
    list_display = (
        "phone",
        "display_name",
        "language_preference",
        "marketing_opt_in",
        "last_seen",
        "tenant",
    )
    list_filter = ("language_preference", "marketing_opt_in", "notifications_opt_in")
    search_fields = ("phone_e164", "display_name")
    readonly_fields = (
        "marketing_opt_in",
        "notifications_opt_in",
        "consent_withdrawn_at",
        "first_seen",
        "last_seen",
    )

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "phone_e164" in form.base_fields:
            form.base_fields["phone_e164"].label = _("Phone")
        return form

    @admin.display(description=_("phone"), ordering="phone_e164")
    def phone(self, obj: Customer) -> str:
        return obj.phone_e164


@admin.register(ConsentEvent)
class ConsentEventAdmin(ReadOnlyScopedAdmin):
    list_display = ("customer", "kind", "action", "source", "created_at", "tenant")
    list_filter = ("kind", "action", "source")
    search_fields = ("customer__phone_e164",)
