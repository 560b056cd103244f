"""The admin page that imports a catalog file (CSV or JSON) for the staff's tenant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tenants.admin_scoping import request_role, request_tenant_id
from tenants.models import Tenant, TenantMembership
from tulia.commerce.admin_catalog import IMPORT_COLUMNS
from tulia.commerce.import_rows import FileError
from tulia.commerce.importer import ImportReport, import_catalog

MAX_UPLOAD_BYTES = 10 * 1024 * 1024


class ImportForm(forms.Form):
    file = forms.FileField(help_text=_("CSV (one row per item or variant) or JSON list"))
    tenant = forms.ModelChoiceField(queryset=Tenant.objects.none(), required=False)

    def __init__(self, *args: Any, superuser: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if superuser:  # only a platform operator picks the shop; owners import into theirs
            self.fields["tenant"].queryset = Tenant.objects.all()  # type: ignore[attr-defined]
        else:
            del self.fields["tenant"]

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError("files over 10 MB must be split")
        return upload


def _target_tenant(request: HttpRequest, form: ImportForm) -> UUID | None:
    if request.user.is_superuser:
        chosen = form.cleaned_data.get("tenant")
        return chosen.pk if chosen else None
    if request_role(request) != TenantMembership.Role.OWNER:
        return None
    return request_tenant_id(request)


def _run(request: HttpRequest, form: ImportForm) -> ImportReport | str:
    tenant_id = _target_tenant(request, form)
    if tenant_id is None:
        return "choose a shop (superusers) or sign in as the shop's owner"
    upload = form.cleaned_data["file"]
    fmt = "json" if upload.name.lower().endswith(".json") else "csv"
    try:
        return import_catalog(tenant_id, upload.read().decode("utf-8-sig"), fmt)
    except (FileError, UnicodeDecodeError) as exc:
        return str(exc)


def import_view(model_admin: admin.ModelAdmin) -> Callable[[HttpRequest], HttpResponse]:
    def view(request: HttpRequest) -> HttpResponse:
        form = ImportForm(
            request.POST or None, request.FILES or None, superuser=request.user.is_superuser
        )
        report: ImportReport | None = None
        if request.method == "POST" and form.is_valid():
            outcome = _run(request, form)
            if isinstance(outcome, str):
                form.add_error(None, outcome)
            elif outcome.ok:
                messages.success(
                    request, f"Imported: {outcome.created} new, {outcome.updated} updated items."
                )
                return HttpResponseRedirect(reverse("admin:commerce_catalogitem_changelist"))
            else:
                report = outcome
        context = {
            **model_admin.admin_site.each_context(request),
            "title": "Import catalog",
            "form": form,
            "report": report,
            "columns": IMPORT_COLUMNS,
            "opts": model_admin.model._meta,
        }
        return TemplateResponse(request, "admin/commerce/catalog_import.html", context)

    return view
