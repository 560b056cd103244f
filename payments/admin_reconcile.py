"""Admin pages that resolve the reconciliation queue: one item's page (suggested
orders, match, refund, ignore with a reason) and the M-Pesa statement upload. Owners only
(tenants/roles.py); each decision is a staff event and an admin log entry."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any
from uuid import uuid4

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from payments.models import PaymentEvent, RefundMethod
from payments.reconcile import (
    ReconcileError,
    ignore,
    match_to_order,
    received,
    refund_unmatched,
    refunded,
    suggest_orders,
    unmatched_money,
)
from payments.refunds import refund_method
from payments.statement_csv import StatementError, confirm_from_statement
from tenants.admin_scoping import request_tenant_id
from tenants.roles import may

MAX_STATEMENT_BYTES = 5 * 1024 * 1024
OPERATIONS = {
    "match": "payments.reconcile.match",
    "refund": "payments.reconcile.refund",
    "ignore": "payments.reconcile.ignore",
}


def resolve_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, event_id: int
) -> HttpResponse:
    event = model_admin.get_queryset(request).filter(pk=event_id).first()
    if event is None:
        raise Http404("not in the queue")
    if request.method == "POST":
        return _decide(model_admin, request, event)
    payment = unmatched_money(event.tenant_id, event.pk)
    gone_back = refunded(payment) if payment else Decimal(0)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Resolve: %(what)s") % {"what": event.reference or event.kind},
        "event": event,
        "payment": payment,
        # Money partly gone back matches no order any more (payments.reconcile).
        "suggestions": [] if not payment or gone_back else suggest_orders(event.tenant_id, payment),
        "refunded": gone_back,
        "left": received(payment) - gone_back if payment else Decimal(0),
        "by_hand": payment is not None
        and refund_method(event.tenant_id, payment) == RefundMethod.MANUAL,
        "refund_key": uuid4().hex,  # one refund per form, however often it is sent
        "may_decide": may(request, "payments.reconcile.match"),
    }
    return TemplateResponse(request, "admin/payments/resolve.html", context)


def _decide(
    model_admin: admin.ModelAdmin, request: HttpRequest, event: PaymentEvent
) -> HttpResponse:
    staff = request.user.get_username()
    decision = request.POST.get("decision", "")
    if not may(request, OPERATIONS.get(decision, OPERATIONS["ignore"])):
        raise PermissionDenied
    try:
        if decision == "match":
            payment = unmatched_money(event.tenant_id, event.pk)
            if payment is None:
                raise ReconcileError(_("this money is not waiting for a match"))
            order_id = int(request.POST.get("order", "0") or 0)
            match_to_order(event.tenant_id, payment.pk, order_id, staff=staff)
            model_admin.log_change(request, event, f"matched to order {order_id}")
            messages.success(request, _("Matched: the order is paid and the customer is told."))
        elif decision == "refund":
            _refund(model_admin, request, event, staff)
        else:
            reason = str(request.POST.get("reason", ""))
            ignore(event.tenant_id, event.pk, staff=staff, reason=reason)
            model_admin.log_change(request, event, f"ignored: {reason}")
            messages.success(request, _("Ignored, with your reason kept."))
    except (ReconcileError, ValueError) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
        return redirect("admin:payments_paymenttoreconcile_resolve", event.pk)
    return redirect("admin:payments_paymenttoreconcile_changelist")


def _refund(
    model_admin: admin.ModelAdmin, request: HttpRequest, event: PaymentEvent, staff: str
) -> None:
    payment = unmatched_money(event.tenant_id, event.pk)
    if payment is None:
        raise ReconcileError(_("this money is not waiting for a decision"))
    typed = str(request.POST.get("amount", "")).replace(",", "").strip()
    try:
        amount = Decimal(typed) if typed else None
    except InvalidOperation as exc:
        raise ReconcileError(_("the amount is not a number")) from exc
    key = str(request.POST.get("key", ""))[:40]
    if not key:
        raise ReconcileError(_("open the payment again and refund from its page"))
    refund = refund_unmatched(
        event.tenant_id,
        payment.pk,
        amount,
        key=f"unmatched:{payment.pk}:{key}",
        staff=staff,
        reason=str(request.POST.get("reason", "")),
    )
    model_admin.log_change(
        request, event, f"refund {refund.pk} of {refund.amount}: {refund.reason}"
    )
    if refund.method == RefundMethod.MANUAL:
        messages.success(request, _("Refund recorded, with your reason kept."))
    else:
        messages.success(request, _("Refund sent to the provider; its answer shows on Refunds."))


class StatementForm(forms.Form):
    statement = forms.FileField(
        label=_("M-Pesa statement (CSV)"),
        help_text=_("From the M-Pesa business portal: Statement, export as CSV."),
    )


def statement_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    tenant_id = request_tenant_id(request)  # a statement is one shop's: staff of that shop
    if tenant_id is None or not may(request, "payments.statement.upload"):
        raise PermissionDenied
    form = StatementForm(request.POST or None, request.FILES or None)
    result: Any = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["statement"]
        if upload.size > MAX_STATEMENT_BYTES:
            form.add_error("statement", _("The file is larger than 5 MB."))
        else:
            try:
                text = upload.read().decode("utf-8-sig", errors="replace")
                result = confirm_from_statement(tenant_id, text, staff=request.user.get_username())
            except StatementError as exc:
                form.add_error("statement", str(exc))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Confirm payments from your M-Pesa statement"),
        "form": form,
        "result": result,
    }
    return TemplateResponse(request, "admin/payments/statement_upload.html", context)
