"""Tenant-specific, unguessable callback URLs and the way back from token to tenant."""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.urls import reverse

from payments.models import CallbackRoute


def route_token(tenant_id: UUID | str) -> str:
    """The tenant's callback token, created on first use (idempotent)."""
    route, _ = CallbackRoute.objects.get_or_create(tenant_id=tenant_id)
    return route.token


def tenant_for_token(token: str) -> UUID | None:
    """None for an unknown token: the caller answers 404 and stores nothing."""
    if not token or len(token) > 64:
        return None
    route = CallbackRoute.objects.filter(token=token).only("tenant_id").first()
    return route.tenant_id if route else None


def callback_url(tenant_id: UUID | str, name: str) -> str:
    """Absolute URL of callback `name` for the tenant, on the public base URL."""
    path = reverse(f"payments:{name}", kwargs={"token": route_token(tenant_id)})
    return f"{settings.PUBLIC_BASE_URL}{path}"


def rotate_token(tenant_id: UUID | str) -> str:
    """Issue a new token (e.g. after a leak); the old URLs stop resolving at once."""
    CallbackRoute.objects.filter(tenant_id=tenant_id).delete()
    return route_token(tenant_id)
