"""Customer-initiated Paybill/Till payments: instructions, URL registration, validation."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

import httpx
from django.utils import timezone

from payments.accounts import mpesa_account
from payments.models import MpesaAccount
from payments.mpesa.client import DarajaClient
from payments.mpesa.schemas import C2BRegisterResponse, C2BTransaction
from payments.routes import callback_url
from tenants.context import tenant_context

ACCEPT = ("0", "Accepted")
REJECT_ACCOUNT = ("C2B00012", "Rejected")
REJECT_AMOUNT = ("C2B00013", "Rejected")


@dataclass(frozen=True)
class C2BInstructions:
    kind: str
    business_number: str
    account_reference: str
    amount: int
    currency: str


def c2b_instructions(tenant_id: UUID | str, order_id: int) -> C2BInstructions:
    """Pay to the tenant's Paybill (with the order's reference as account) or till."""
    from tulia.commerce.orders import get_order

    account = mpesa_account(tenant_id)
    order = get_order(tenant_id, order_id)
    till = account.kind == MpesaAccount.Kind.TILL
    return C2BInstructions(
        kind=account.kind,
        business_number=account.party_b,
        # Buy Goods has no account field, so till payments are matched by reviewers.
        account_reference="" if till else order.reference,
        amount=order.amount_whole_kes(),
        currency=order.currency,
    )


def register_c2b_urls(
    tenant_id: UUID | str, *, http: httpx.Client | None = None
) -> C2BRegisterResponse:
    """Register our confirmation/validation URLs (a one-time call in production)."""
    account = mpesa_account(tenant_id)
    answer = DarajaClient(account, http=http).register_c2b_urls(
        callback_url(tenant_id, "c2b_confirmation"), callback_url(tenant_id, "c2b_validation")
    )
    with tenant_context(tenant_id) as tid:
        MpesaAccount.objects.filter(tenant_id=tid).update(c2b_registered_at=timezone.now())
    return answer


def validate_c2b(tenant_id: UUID | str, txn: C2BTransaction) -> tuple[str, str]:
    """Accept, or (when the tenant enables it) reject unknown references / wrong amounts."""
    from tulia.commerce.models import Order

    account = mpesa_account(tenant_id)
    if not account.validate_c2b:
        return ACCEPT
    with tenant_context(tenant_id) as tid:
        order = Order.objects.filter(tenant_id=tid, reference=txn.account_reference).first()
    if order is None or order.status not in ("draft", "pending_payment"):
        return REJECT_ACCOUNT
    if txn.trans_amount != order.total:
        return REJECT_AMOUNT
    return ACCEPT
