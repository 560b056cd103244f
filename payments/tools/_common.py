"""What the four payment tools share: the customer's own order, errors as ToolFailure."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from payments.errors import PaymentError
from tenants.errors import NotFound
from tools.contract import ToolFailure


@contextmanager
def payment_errors() -> Iterator[None]:
    """Refusals and provider failures come back as structured tool errors."""
    try:
        yield
    except PaymentError as exc:
        raise ToolFailure(exc.code, exc.message, retryable=exc.retryable) from exc


def customers_order_id(tenant_id: UUID, customer_id: int, order_id: int) -> int:
    """The order, if it belongs to this customer; another customer's looks absent."""
    from tulia.commerce.orders import get_order

    order = get_order(tenant_id, order_id)
    if order.customer_id != customer_id:
        raise NotFound("order not found")
    return order.pk
