"""Reading payment status: always from the payment record, never inferred (Property 7)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from uuid import UUID

from payments.models import PaymentRequest
from tenants.context import tenant_context


@dataclass(frozen=True)
class PaymentSummary:
    payment_id: int
    method: str
    status: str
    amount: Decimal
    receipt: str
    needs_review: bool


def latest_payment(tenant_id: UUID | str, order_id: int) -> PaymentSummary | None:
    """The order's most recent payment attempt as recorded, or None if there is none."""
    with tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.filter(tenant_id=tid, order_id=order_id)
            .order_by("-created_at", "-id")
            .first()
        )
    if payment is None:
        return None
    return PaymentSummary(
        payment_id=payment.pk,
        method=payment.method,
        status=payment.status,
        amount=payment.amount,
        receipt=payment.receipt,
        needs_review=payment.needs_review,
    )
