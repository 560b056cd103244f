"""Per-tenant provider accounts: read through the tenant's context, secrets encrypted."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from payments.errors import NotConfigured
from payments.models import MpesaAccount, PesapalAccount
from payments.routes import ensure_secrets
from tenants.accessors import tenant_scope
from tenants.context import tenant_context


def mpesa_account(tenant_id: UUID | str) -> MpesaAccount:
    # Reads join the caller's open context of this tenant (a tool's) for free.
    with tenant_scope(tenant_id) as tid:
        account = MpesaAccount.objects.filter(tenant_id=tid).first()
    if account is None:
        raise NotConfigured("this shop has no M-Pesa account configured")
    return account


def pesapal_account(tenant_id: UUID | str) -> PesapalAccount:
    with tenant_scope(tenant_id) as tid:
        account = PesapalAccount.objects.filter(tenant_id=tid).first()
    if account is None:
        raise NotConfigured("this shop has no PesaPal account configured")
    return account


def configure_mpesa(tenant_id: UUID | str, **fields: Any) -> MpesaAccount:
    """Create or replace the tenant's Daraja settings (validated) and its callback route."""
    with tenant_context(tenant_id) as tid:
        account = MpesaAccount.objects.filter(tenant_id=tid).first() or MpesaAccount(tenant_id=tid)
        for name, value in fields.items():
            setattr(account, name, value)
        account.full_clean(exclude=["tenant"])
        account.save()
        ensure_secrets(tid)
        return account


def configure_pesapal(tenant_id: UUID | str, **fields: Any) -> PesapalAccount:
    with tenant_context(tenant_id) as tid:
        account = PesapalAccount.objects.filter(tenant_id=tid).first() or PesapalAccount(
            tenant_id=tid
        )
        for name, value in fields.items():
            setattr(account, name, value)
        account.full_clean(exclude=["tenant"])
        account.save()
        ensure_secrets(tid)
        return account
