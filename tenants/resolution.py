"""Tenant resolution for inbound traffic, before any tenant context exists.

This is the narrow, named path across tenants: it reads only the global number → tenant
route, then continues inside that tenant's context.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import SenderRoute, Tenant, WhatsAppSender
from tenants.phone import InvalidPhoneNumber, normalize_phone


@dataclass(frozen=True)
class ResolvedSender:
    tenant_id: UUID
    sender: WhatsAppSender


def resolve_whatsapp_number(address: str) -> ResolvedSender:
    """Map Twilio's `To` (e.g. whatsapp:+254711000001) to its active tenant and sender."""
    try:
        e164 = normalize_phone(address)
    except InvalidPhoneNumber as exc:
        raise NotFound("no tenant for this number") from exc
    route = (
        SenderRoute.objects.filter(phone_e164=e164, tenant__status=Tenant.Status.ACTIVE)
        .values_list("tenant_id", "sender_id")
        .first()
    )
    if route is None:
        raise NotFound("no tenant for this number")
    tenant_id, sender_id = route
    with tenant_context(tenant_id):
        sender = WhatsAppSender.objects.filter(
            tenant_id=tenant_id, pk=sender_id, is_active=True
        ).first()
    if sender is None:
        raise NotFound("no tenant for this number")
    return ResolvedSender(tenant_id=tenant_id, sender=sender)
