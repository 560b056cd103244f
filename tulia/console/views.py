"""The admin home: an agent lands on the inbox, an owner on the shop's day."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from tenants.admin_scoping import request_tenant_id
from tenants.models import Tenant
from tenants.roles import AGENT, request_role
from tulia.console.today import shop_today

# An operator's home lists shops; beyond this many, the shop list is the place to look.
OPERATOR_SHOPS = 20


def home(request: HttpRequest) -> HttpResponse:
    if request_role(request) == AGENT:
        return redirect("admin:handoff_handoffticket_changelist")
    now = timezone.now()
    context = {"shops_today": [shop_today(tenant, now) for tenant in _shops(request)]}
    return admin.site.index(request, extra_context=context)


def _shops(request: HttpRequest) -> list[Tenant]:
    if request.user.is_superuser:
        return list(Tenant.objects.order_by("name")[:OPERATOR_SHOPS])
    tenant_id = request_tenant_id(request)
    return list(Tenant.objects.filter(pk=tenant_id)) if tenant_id else []
