"""Admin: provider accounts (secrets write-only, masked), payments and events read-only,
and the reconciliation queue of everything a person must look at.

Owners also rotate the callback secrets here (payments.routes) and, for shops without
a Daraja API initiator, confirm C2B payments from the M-Pesa statement (audited)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from payments import admin_actions, admin_reconcile, admin_refunds  # noqa: F401 - registers
from payments.models import (
    MpesaAccount,
    PaymentEvent,
    PaymentRequest,
    PaymentToReconcile,
    PesapalAccount,
)
from tenants.admin_scoping import ReadOnlyScopedAdmin, TenantScopedAdmin
from tenants.crypto import Secret
from tenants.roles import is_owner, role_action

WRITE_ONLY_HELP = _("Stored encrypted. Leave blank to keep the current value.")


def _secret_field() -> forms.CharField:
    return forms.CharField(
        required=False, widget=forms.PasswordInput(render_value=False), help_text=WRITE_ONLY_HELP
    )


class _SecretsForm(forms.ModelForm):
    """Secrets are write-only: never rendered back; blank keeps the stored one."""

    secret_fields: tuple[str, ...] = ()
    optional_secret_fields: tuple[str, ...] = ()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in self.secret_fields:
            typed = cleaned.get(name) or ""
            stored = getattr(self.instance, name, None) if self.instance.pk else None
            if typed:
                cleaned[name] = Secret(typed)
            elif stored:
                cleaned[name] = stored
            elif name in self.optional_secret_fields:
                cleaned[name] = Secret("")
            else:
                self.add_error(name, "Required for a new account.")
        return cleaned


class MpesaAccountForm(_SecretsForm):
    secret_fields = ("consumer_secret", "passkey", "security_credential")
    optional_secret_fields = ("security_credential",)
    consumer_secret = _secret_field()
    passkey = _secret_field()
    security_credential = _secret_field()

    class Meta:
        model = MpesaAccount
        fields = (
            "tenant",
            "environment",
            "base_url",
            "kind",
            "shortcode",
            "till_number",
            "consumer_key",
            "consumer_secret",
            "passkey",
            "validate_c2b",
            "stk_query_after_seconds",
            "stk_give_up_after_seconds",
            "source_ip_check",
            "initiator_name",
            "security_credential",
        )


class PesapalAccountForm(_SecretsForm):
    secret_fields = ("consumer_secret",)
    consumer_secret = _secret_field()

    class Meta:
        model = PesapalAccount
        fields = ("tenant", "environment", "base_url", "consumer_key", "consumer_secret")


def _masked(secret: Secret | None) -> str:
    return secret.masked() if secret else "—"


@admin.register(MpesaAccount)
class MpesaAccountAdmin(TenantScopedAdmin):
    form = MpesaAccountForm
    list_display = ("__str__", "environment", "masked_secret", "masked_passkey", "tenant")
    readonly_fields = ("c2b_registered_at", "created_at")
    actions = (
        admin_actions.register_c2b,
        admin_actions.start_callback_rotation,
        admin_actions.confirm_callback_rotation,
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        # The C2B URLs carry the C2B secret: shown to the owner, who registers them.
        show = obj is not None and is_owner(request)
        return (*fields, "callback_setup") if show else fields

    @admin.display(description="Callback URLs")
    def callback_setup(self, obj: MpesaAccount) -> str:
        return admin_actions.callback_setup(obj)

    @admin.display(description="Consumer secret")
    def masked_secret(self, obj: MpesaAccount) -> str:
        return _masked(obj.consumer_secret)

    @admin.display(description="Passkey")
    def masked_passkey(self, obj: MpesaAccount) -> str:
        return _masked(obj.passkey)


@admin.register(PesapalAccount)
class PesapalAccountAdmin(TenantScopedAdmin):
    form = PesapalAccountForm
    list_display = ("__str__", "environment", "masked_secret", "ipn_id", "tenant")
    actions = (
        admin_actions.register_c2b,
        admin_actions.start_callback_rotation,
        admin_actions.confirm_callback_rotation,
    )

    @admin.display(description="Consumer secret")
    def masked_secret(self, obj: PesapalAccount) -> str:
        return _masked(obj.consumer_secret)


class EventInline(admin.TabularInline):
    model = PaymentEvent
    fields = ("received_at", "kind", "outcome", "needs_review", "note", "raw_body")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@role_action("payments.review.mark_reviewed", description="Mark as reviewed (reconciled)")
def mark_reviewed(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> None:
    count = queryset.filter(reviewed_at__isnull=True).update(reviewed_at=timezone.now())
    modeladmin.message_user(request, f"{count} marked as reviewed.", messages.SUCCESS)


class _ReviewAdmin(ReadOnlyScopedAdmin):
    # The payment record is authoritative: nobody edits it by hand.
    # Clearing the queue is an owner's operation (tenants/roles.py), though the
    # record itself stays read-only for everyone.
    actions = (mark_reviewed,)


@admin.register(PaymentRequest)
class PaymentRequestAdmin(_ReviewAdmin):
    list_display = (
        "created_at",
        "order",
        "method",
        "amount",
        "status",
        "receipt",
        "needs_review",
        "suspected_forgery",
        "tenant",
    )
    list_filter = ("status", "method", "needs_review", "suspected_forgery")
    search_fields = ("order__reference", "receipt", "provider_reference", "account_reference")
    readonly_fields = [f.name for f in PaymentRequest._meta.fields]
    inlines = (EventInline,)
    actions: Any = (
        *_ReviewAdmin.actions,
        admin_actions.confirm_on_statement,
        admin_actions.refuse_not_on_statement,
    )


@admin.register(PaymentEvent)
class PaymentEventAdmin(_ReviewAdmin):
    list_display = ("received_at", "kind", "reference", "outcome", "needs_review", "tenant")
    list_filter = ("kind", "outcome", "needs_review")
    search_fields = ("reference", "note")
    readonly_fields = [f.name for f in PaymentEvent._meta.fields]


@admin.register(PaymentToReconcile)
class ReconciliationQueueAdmin(_ReviewAdmin):
    """Unmatched, mismatched, conflicting, late or unreadable money events, oldest first.

    Each row opens its resolve page (payments.admin_reconcile): suggested orders,
    match, ignore with a reason; the statement upload confirms held payments in bulk."""

    list_display = ("resolve_link", "received_at", "kind", "outcome", "note", "tenant")
    list_display_links = None
    list_filter = ("kind", "outcome")
    search_fields = ("reference", "note")
    ordering = ("received_at",)
    readonly_fields = [f.name for f in PaymentEvent._meta.fields]
    change_list_template = "admin/payments/paymenttoreconcile/change_list.html"
    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        return queryset.filter(needs_review=True, reviewed_at__isnull=True)

    @admin.display(description=_("payment"))
    def resolve_link(self, obj: PaymentEvent) -> str:
        return format_html(
            '<a href="{}">{} <span>{} &rsaquo;</span></a>',
            reverse("admin:payments_paymenttoreconcile_resolve", args=[obj.pk]),
            obj.reference or obj.kind,
            _("resolve"),
        )

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:event_id>/resolve/",
                self.admin_site.admin_view(partial(admin_reconcile.resolve_view, self)),
                name="payments_paymenttoreconcile_resolve",
            ),
            path(
                "statement/",
                self.admin_site.admin_view(partial(admin_reconcile.statement_view, self)),
                name="payments_paymenttoreconcile_statement",
            ),
        ]
        return [*own, *super().get_urls()]
