"""What the payment tools share: the customer's own order. Their PaymentErrors are
domain errors, mapped to tool errors once in tools.errors."""

from __future__ import annotations

from uuid import UUID

from tenants.errors import NotFound


def customers_order_id(tenant_id: UUID, customer_id: int, order_id: int) -> int:
    """The order, if it belongs to this customer; another customer's looks absent."""
    from tulia.commerce.orders import get_order

    order = get_order(tenant_id, order_id)
    if order.customer_id != customer_id:
        raise NotFound("order not found")
    return order.pk
