"""order_list_recent: the customer's latest orders, to pick one by number.

"delivered" lists what could be returned (newest delivery first); "open" lists what the
customer could still cancel (not yet shipped). Only the customer's own orders.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Literal

from pydantic import Field

from tools.contract import CustomerToolInput, Tool, ToolOutput
from tulia.commerce.models import Order, OrderStatus

# Before shipping the customer may still cancel (tulia.commerce.lifecycle).
OPEN_STATUSES = (
    OrderStatus.PENDING_PAYMENT,
    OrderStatus.PAID,
    OrderStatus.CONFIRMED,
    OrderStatus.PACKED,
)


class OrderListRecentInput(CustomerToolInput):
    which: Literal["delivered", "open"] = "delivered"
    limit: int = Field(default=5, ge=1, le=10)


class RecentOrder(ToolOutput):
    order_id: int
    reference: str
    status: str
    total: Decimal
    currency: str
    items: list[str]
    created_at: datetime
    delivered_at: datetime | None


class OrderListRecentOutput(ToolOutput):
    orders: list[RecentOrder]


def run(data: OrderListRecentInput) -> OrderListRecentOutput:
    orders = Order.objects.filter(tenant_id=data.tenant_id, customer_id=data.customer_id)
    if data.which == "delivered":
        orders = orders.filter(status=OrderStatus.DELIVERED).order_by("-delivered_at", "-id")
    else:
        orders = orders.filter(status__in=OPEN_STATUSES).order_by("-created_at", "-id")
    return OrderListRecentOutput(
        orders=[_recent(order) for order in orders.prefetch_related("lines")[: data.limit]]
    )


def _recent(order: Order) -> RecentOrder:
    return RecentOrder(
        order_id=order.pk,
        reference=order.reference,
        status=order.status,
        total=order.total,
        currency=order.currency,
        items=[line.name for line in sorted(order.lines.all(), key=lambda line: line.pk)],
        created_at=order.created_at,
        delivered_at=order.delivered_at,
    )


TOOL = Tool(
    name="order_list_recent",
    description=(
        "List the customer's latest orders: 'delivered' ones (to return or exchange) or "
        "'open' ones not yet shipped (to cancel), newest first."
    ),
    input_model=OrderListRecentInput,
    output_model=OrderListRecentOutput,
    run=run,
)
