"""The one door to tenant-owned rows: named readers that take the tenant explicitly.

Each opens (or joins) the tenant's context, so RLS applies underneath, and also filters
by tenant in SQL: belt and braces. Absent and not-yours both raise NotFound.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar
from uuid import UUID

from django.db import connection
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from tenants.context import current_tenant_id, tenant_context
from tenants.errors import NotFound
from tenants.models import Customer, Tenant, TenantMembership, TenantOwnedModel, WhatsAppSender
from tenants.phone import InvalidPhoneNumber, normalize_phone

OwnedT = TypeVar("OwnedT", bound=TenantOwnedModel)


# A turn reads its tenant's row several times (persona, compliance, catalog link,
# payment methods, the tool runner's status check). Rows are kept briefly per process;
# saves in this process drop them at once, other processes see a change within the TTL.
TENANT_CACHE_SECONDS = 5.0
_tenant_cache: dict[str, tuple[float, Tenant]] = {}


def get_tenant(tenant_id: UUID | str) -> Tenant:
    """The tenant (a private copy: callers may change and save it), or NotFound."""
    try:
        key = str(UUID(str(tenant_id)))
    except ValueError as exc:
        raise NotFound("tenant not found") from exc
    cached = _tenant_cache.get(key)
    if cached is not None and time.monotonic() - cached[0] < TENANT_CACHE_SECONDS:
        return _private_copy(cached[1])
    try:
        tenant = Tenant.objects.get(pk=key)
    except Tenant.DoesNotExist as exc:
        raise NotFound("tenant not found") from exc
    _tenant_cache[key] = (time.monotonic(), _private_copy(tenant))
    return tenant


def _private_copy(tenant: Tenant) -> Tenant:
    """A copy sharing nothing mutable with the cached row (a deepcopy costs ~1 ms)."""
    clone = copy.copy(tenant)  # Django's pickling hooks copy the model state too
    for name, value in vars(tenant).items():
        if isinstance(value, dict | list):
            setattr(clone, name, copy.deepcopy(value))
    return clone


@receiver(post_save, sender=Tenant)
@receiver(post_delete, sender=Tenant)
def _forget_tenant(sender: type[Tenant], instance: Tenant, **kwargs: Any) -> None:
    forget_tenant(instance.pk)


def forget_tenant(tenant_id: UUID | str | None = None) -> None:
    """Drop one cached tenant row (all of them without an id), e.g. after a bulk update."""
    if tenant_id is None:
        _tenant_cache.clear()
    else:
        _tenant_cache.pop(str(tenant_id), None)


@contextmanager
def tenant_scope(tenant_id: UUID | str) -> Iterator[UUID]:
    """The tenant's context; joined for free when the caller is already inside it.

    Each nested `tenant_context` costs a savepoint and two settings round trips. Reads
    made inside the same tenant's open context (a tool run by the runner) need neither:
    the transaction-local setting is already that tenant's.
    """
    active = current_tenant_id()
    if active is not None and str(active) == str(tenant_id) and connection.in_atomic_block:
        yield active
        return
    with tenant_context(tenant_id) as tid:
        yield tid


def get_owned(model: type[OwnedT], tenant_id: UUID | str, pk: object) -> OwnedT:
    """Fetch one tenant-owned row by primary key, or NotFound."""
    with tenant_scope(tenant_id) as tid:
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
    with tenant_scope(tenant_id) as tid:
        customer = Customer.objects.filter(tenant_id=tid, phone_e164=e164).first()
    if customer is None:
        raise NotFound("customer not found")
    return customer


def active_senders(tenant_id: UUID | str) -> list[WhatsAppSender]:
    with tenant_context(tenant_id) as tid:
        return list(WhatsAppSender.objects.filter(tenant_id=tid, is_active=True).order_by("id"))


def membership_of(user_id: int) -> TenantMembership | None:
    """The staff user's membership, read through the narrow sign-in path of RLS."""
    from tenants.context import staff_identity

    with staff_identity(user_id):
        return TenantMembership.objects.select_related("tenant").filter(user_id=user_id).first()
