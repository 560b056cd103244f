"""Binds each signed-in staff request to its tenant for the whole request.

A tenant's staff run inside `tenant_context` (RLS applies to every query of the
request); superusers run in `operator_context` and see all tenants; a staff user with
no membership runs with no tenant and so sees no tenant-owned rows.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from django.http import HttpRequest, HttpResponse

from tenants.accessors import membership_of
from tenants.context import operator_context, tenant_context


class StaffTenantMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.tenant_membership = None  # type: ignore[attr-defined]
        with self._context_for(request):
            return self.get_response(request)

    def _context_for(self, request: HttpRequest) -> AbstractContextManager[object]:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not user.is_staff:
            return nullcontext()
        if user.is_superuser:
            return operator_context(f"superuser {user.pk} {request.method} {request.path}")
        membership = membership_of(user.pk)
        request.tenant_membership = membership  # type: ignore[attr-defined]
        if membership is None:
            return nullcontext()
        return tenant_context(membership.tenant_id)
