"""The one door to tenant-owned rows: named readers that take the tenant explicitly.

Each opens (or joins) the tenant's context, so RLS applies underneath, and also filters
by tenant in SQL: belt and braces. Absent and not-yours both raise NotFound.
"""

from __future__ import annotations

from typing import TypeVar
from uuid import UUID

from django.db.models import Model

from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import Customer, Tenant, TenantMembership, TenantOwnedModel, WhatsAppSender
from tenants.phone import InvalidPhoneNumber, normalize_phone

OwnedT = TypeVar("OwnedT", bound=TenantOwnedModel)


def get_tenant(tenant_id: UUID | str) -> Tenant:
    try:
        return Tenant.objects.get(pk=tenant_id)
    except (Tenant.DoesNotExist, ValueError) as exc:
        raise NotFound("tenant not found") from exc


def get_owned(model: type[OwnedT], tenant_id: UUID | str, pk: object) -> OwnedT:
    """Fetch one tenant-owned row by primary key, or NotFound."""
    with tenant_context(tenant_id) as tid:
        try:
            return model.objects.get(tenant_id=tid, pk=pk)  # type: ignore[attr-defined]
        except (model.DoesNotExist, ValueError, TypeError) as exc:
            raise NotFound(f"{model._meta.verbose_name} not found") from exc


def get_customer(tenant_id: UUID | str, customer_id: int) -> Customer:
    return get_owned(Customer, tenant_id, customer_id)


def find_customer_by_phone(tenant_id: UUID | str, phone: str) -> Customer:
    try:
        e164 = normalize_phone(phone)
    except InvalidPhoneNumber as exc:
        raise NotFound("customer not found") from exc
    with tenant_context(tenant_id) as tid:
        customer = Customer.objects.filter(tenant_id=tid, phone_e164=e164).first()
    if customer is None:
        raise NotFound("customer not found")
    return customer


def get_sender(tenant_id: UUID | str, sender_id: int) -> WhatsAppSender:
    return get_owned(WhatsAppSender, tenant_id, sender_id)


def active_senders(tenant_id: UUID | str) -> list[WhatsAppSender]:
    with tenant_context(tenant_id) as tid:
        return list(WhatsAppSender.objects.filter(tenant_id=tid, is_active=True).order_by("id"))


def count_rows(model: type[Model], tenant_id: UUID | str) -> int:
    with tenant_context(tenant_id) as tid:
        return model.objects.filter(tenant_id=tid).count()  # type: ignore[attr-defined]


def membership_of(user_id: int) -> TenantMembership | None:
    """The staff user's membership, read through the narrow sign-in path of RLS."""
    from tenants.context import staff_identity

    with staff_identity(user_id):
        return TenantMembership.objects.select_related("tenant").filter(user_id=user_id).first()
