"""State changes for tenants, senders, staff and customers, each in one transaction."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer, Tenant, TenantMembership, WhatsAppSender
from tenants.phone import normalize_phone


def create_tenant(**fields: Any) -> Tenant:
    """Validate every field (config JSON included) and save, or raise ValidationError."""
    tenant = Tenant(**fields)
    tenant.full_clean()
    tenant.save()
    return tenant


def update_tenant(tenant: Tenant, **fields: Any) -> Tenant:
    for name, value in fields.items():
        setattr(tenant, name, value)
    tenant.full_clean()
    tenant.save()
    return tenant


def register_whatsapp_sender(
    tenant_id: UUID | str,
    *,
    phone: str,
    account_sid: str,
    auth_token: str,
    label: str = "",
) -> WhatsAppSender:
    with tenant_context(tenant_id) as tid:
        sender = WhatsAppSender(
            tenant_id=tid,
            phone_e164=phone,
            twilio_account_sid=account_sid,
            twilio_auth_token=auth_token,
            label=label,
        )
        sender.full_clean()
        sender.save()
        return sender


def add_staff_member(
    tenant_id: UUID | str,
    *,
    username: str,
    password: str,
    role: str,
    email: str = "",
    display_name: str = "",
) -> AbstractUser:
    """Create (or update) a staff login bound to one tenant."""
    user_model = get_user_model()
    with tenant_context(tenant_id) as tid:
        user, _ = user_model.objects.get_or_create(username=username, defaults={"email": email})
        user.is_staff = True
        user.set_password(password)
        user.save()
        membership = TenantMembership(tenant_id=tid, user=user, role=role)
        membership.clean_fields(exclude=["user", "tenant"])  # role must be a known one
        TenantMembership.objects.update_or_create(
            user=user, defaults={"tenant_id": tid, "role": role, "display_name": display_name}
        )
    return user


def get_or_create_customer(
    tenant_id: UUID | str, phone: str, *, display_name: str = ""
) -> tuple[Customer, bool]:
    """Find the customer by normalised phone or create them; safe under concurrency.

    The unique (tenant, phone) constraint decides races: the loser re-reads the winner.
    """
    e164 = normalize_phone(phone)
    now = timezone.now()
    with tenant_context(tenant_id) as tid:
        try:
            with transaction.atomic():
                customer, created = Customer.objects.get_or_create(
                    tenant_id=tid,
                    phone_e164=e164,
                    defaults={"display_name": display_name[:120], "last_seen": now},
                )
        except IntegrityError:
            customer, created = Customer.objects.get(tenant_id=tid, phone_e164=e164), False
        if not created:
            updates: dict[str, object] = {"last_seen": now}
            if display_name and not customer.display_name:
                updates["display_name"] = display_name[:120]
            Customer.objects.filter(pk=customer.pk).update(**updates)
            for name, value in updates.items():
                setattr(customer, name, value)
    return customer, created


_CONSENT_FLAGS = {
    ConsentEvent.Kind.MARKETING: ("marketing_opt_in",),
    ConsentEvent.Kind.NOTIFICATIONS: ("notifications_opt_in",),
    ConsentEvent.Kind.ALL: ("marketing_opt_in", "notifications_opt_in"),
}


def record_consent(
    tenant_id: UUID | str,
    customer_id: int,
    *,
    kind: str,
    action: str,
    source: str,
    evidence: str = "",
    request_id: str = "",
) -> ConsentEvent:
    """Change a customer's consent flags and append the audit event, atomically."""
    kind_value = ConsentEvent.Kind(kind)
    granted = ConsentEvent.Action(action) == ConsentEvent.Action.GRANTED
    with tenant_context(tenant_id) as tid:
        customer = Customer.objects.select_for_update().get(tenant_id=tid, pk=customer_id)
        for flag in _CONSENT_FLAGS[kind_value]:
            setattr(customer, flag, granted)
        if kind_value == ConsentEvent.Kind.ALL:
            customer.consent_withdrawn_at = None if granted else timezone.now()
        customer.save(update_fields=[*_CONSENT_FLAGS[kind_value], "consent_withdrawn_at"])
        event = ConsentEvent(
            tenant_id=tid,
            customer=customer,
            kind=kind_value,
            action=action,
            source=source,
            evidence=evidence[:500],
            request_id=request_id[:64],
        )
        event.full_clean()
        event.save()
        return event
