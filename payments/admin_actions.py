"""Admin actions of the payment security work: callback-secret rotation and the staff
decision on held C2B payments. Owners only; every decision is also in admin's log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from payments.errors import ProviderError
from payments.models import Environment, MpesaAccount, PaymentRequest
from payments.mpesa.c2b import register_c2b_urls
from payments.routes import callback_url, confirm_rotation, rotation_state, start_rotation
from payments.statement import decide_from_statement
from tenants.roles import role_action


@role_action(
    "payments.secrets.start_rotation",
    description="Start callback-secret rotation (old secrets keep working)",
)
def start_callback_rotation(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> None:
    tenants = set(queryset.values_list("tenant_id", flat=True))
    for tenant_id in tenants:
        start_rotation(tenant_id)
    modeladmin.message_user(
        request,
        "New callback secrets issued. STK, Transaction Status, card and PesaPal IPN URLs "
        "switch on the next payment; C2B URLs must be changed in the Daraja portal (steps "
        "on the M-Pesa account page). Old secrets work until you confirm the switch.",
        messages.SUCCESS,
    )


@role_action(
    "payments.secrets.confirm_rotation",
    description="Confirm switch to new callback secrets (old ones stop working)",
)
def confirm_callback_rotation(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]
) -> None:
    retired = sum(
        confirm_rotation(tenant_id)
        for tenant_id in set(queryset.values_list("tenant_id", flat=True))
    )
    modeladmin.message_user(request, f"{retired} old callback secret(s) retired.")


def callback_setup(account: MpesaAccount) -> str:
    """The C2B URLs to register and the Daraja portal steps (owners only)."""
    state = rotation_state(account.tenant_id)
    confirm = callback_url(account.tenant_id, "c2b_confirmation")
    validate = callback_url(account.tenant_id, "c2b_validation")
    steps = [
        (
            "Daraja portal → URL Management: delete the URLs registered for shortcode {}.",
            account.shortcode,
        ),
        ("Register Confirmation URL {}", confirm),
        ("Register Validation URL {}", validate),
        ("Make a small test payment and check it arrives here.", ""),
        ("Then run “Confirm switch to new callback secrets”.", ""),
    ]
    status = (
        f"Rotation in progress for: {', '.join(state.pending)}. Old secrets still accepted."
        if state.in_progress
        else "No rotation in progress."
    )
    items = format_html_join("", "<li>{}</li>", ((format_html(t, v),) for t, v in steps))
    return format_html(
        "<p>{}</p><p>Sandbox: the action “Register C2B URLs with Daraja” sends them. "
        "C2B URLs are registered once per shortcode in production, so they "
        "do not move by themselves:</p><ol>{}</ol>",
        status,
        items,
    )


@role_action(
    "payments.c2b.register",
    description="Register C2B URLs with Daraja (sandbox; production steps on the page)",
)
def register_c2b(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[MpesaAccount]
) -> None:
    """Sandbox shortcodes are registered here, through the Daraja API, with the callback
    URLs that carry the shop's C2B secret. A production shortcode's URLs are registered
    once in the Daraja portal (the steps on the account page), so none is sent from here."""
    for account in queryset:
        if account.environment != Environment.SANDBOX:
            modeladmin.message_user(
                request,
                f"{account}: production URLs are registered in the Daraja portal "
                "(steps on the account page).",
                messages.WARNING,
            )
            continue
        try:
            answer = register_c2b_urls(account.tenant_id)
        except ProviderError as exc:
            modeladmin.message_user(request, f"{account}: Daraja said no: {exc}", messages.ERROR)
            continue
        modeladmin.message_user(
            request,
            f"{account}: C2B URLs registered ({answer.response_description}).",
            messages.SUCCESS,
        )


def _decide(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[PaymentRequest],
    on_statement: bool,
) -> None:
    staff = request.user.get_username()
    done = 0
    for payment in queryset:
        outcome = decide_from_statement(
            payment.tenant_id, payment.pk, on_statement=on_statement, staff=staff
        )
        if outcome is not None:
            done += 1
            modeladmin.log_change(request, payment, f"statement check: {outcome}")
    skipped = queryset.count() - done
    modeladmin.message_user(
        request,
        f"{done} decided; {skipped} skipped (only held M-Pesa Paybill/Till payments).",
        messages.SUCCESS if done else messages.WARNING,
    )


@role_action(
    "payments.statement.confirm", description="Found on the M-Pesa statement: confirm paid"
)
def confirm_on_statement(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[PaymentRequest]
) -> None:
    _decide(modeladmin, request, queryset, on_statement=True)


@role_action(
    "payments.statement.refuse",
    description="Not on the M-Pesa statement: refuse (suspected forgery)",
)
def refuse_not_on_statement(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[PaymentRequest]
) -> None:
    _decide(modeladmin, request, queryset, on_statement=False)
