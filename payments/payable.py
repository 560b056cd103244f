"""Checks every new payment attempt passes before any provider is called."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING
from uuid import UUID

from django.utils import timezone

from payments.errors import PaymentError
from payments.models import OPEN_STATUSES, PaymentMethod, PaymentRequest
from tenants.accessors import get_tenant

if TYPE_CHECKING:
    from tulia.commerce.models import Order

PAYABLE_ORDER_STATUSES = ("draft", "pending_payment")


def payable_order(tenant_id: UUID, order_id: int, method: str, confirmed: Decimal) -> Order:
    """The locked order, if this method is on and `confirmed` is exactly its total."""
    from tulia.commerce.models import Order

    # The same (briefly cached) shop settings payment_get_methods offered the method from.
    if method not in get_tenant(tenant_id).payment_methods:
        raise PaymentError("method_not_enabled", f"this shop does not take {method}")
    order = (
        Order.objects.select_for_update(of=("self",))
        .select_related("customer")
        .filter(tenant_id=tenant_id, pk=order_id)
        .first()
    )
    if order is None:
        raise PaymentError("not_found", "order not found")
    if order.status not in PAYABLE_ORDER_STATUSES:
        raise PaymentError("order_not_payable", f"the order is {order.status}")
    if confirmed != order.total or order.total <= 0:
        raise PaymentError(
            "amount_not_confirmed", f"confirmed {confirmed} but the order total is {order.total}"
        )
    return order


def refuse_if_in_flight(tenant_id: UUID, order_id: int, *, within_seconds: int) -> None:
    """One prompt at a time: a second push while the first may still be answered could
    charge the customer twice (and Daraja refuses it anyway, 500.001.1001)."""
    since = timezone.now() - timedelta(seconds=within_seconds)
    in_flight = PaymentRequest.objects.filter(
        tenant_id=tenant_id,
        order_id=order_id,
        method=PaymentMethod.MPESA_STK,
        status__in=OPEN_STATUSES,  # a success being confirmed is still in flight
        created_at__gt=since,
    ).exists()
    if in_flight:
        raise PaymentError(
            "payment_in_progress", "an M-Pesa prompt for this order is still open", retryable=True
        )
