"""Output pieces several tools share (an order as the customer sees it)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from tools.contract import ToolOutput
from tulia.commerce.models import Order, OrderLine


class OrderLineOut(ToolOutput):
    item_id: int
    variant_id: int | None
    name: str
    sku: str
    unit_price: Decimal
    quantity: int
    line_total: Decimal


class OrderOut(ToolOutput):
    order_id: int
    reference: str
    status: str
    lines: list[OrderLineOut]
    subtotal: Decimal
    discount_total: Decimal
    total: Decimal
    currency: str
    amount_whole_kes: int
    coupon_code: str | None
    fulfilment: str | None
    delivery_area: str | None
    delivery_address: str | None
    delivery_fee: Decimal
    created_at: datetime


def _by_id(line: OrderLine) -> int:
    return int(line.pk)


def order_out(order: Order, written: Sequence[OrderLine] | None = None) -> OrderOut:
    """The order as tools return it; `written`: its lines when the caller has just
    written them (ordered by id), so they are not read back."""
    rows = order.lines.order_by("id") if written is None else sorted(written, key=_by_id)
    lines = [
        OrderLineOut(
            item_id=line.item_id,
            variant_id=line.variant_id,
            name=line.name,
            sku=line.sku,
            unit_price=line.unit_price,
            quantity=line.quantity,
            line_total=line.line_total,
        )
        for line in rows
    ]
    return OrderOut(
        order_id=order.pk,
        reference=order.reference,
        status=order.status,
        lines=lines,
        subtotal=order.subtotal,
        discount_total=order.discount_total,
        total=order.total,
        currency=order.currency,
        amount_whole_kes=order.amount_whole_kes(),
        coupon_code=order.coupon.code if order.coupon_id and order.coupon else None,
        fulfilment=order.fulfilment or None,
        delivery_area=order.delivery_area or None,
        delivery_address=order.delivery_address or None,
        delivery_fee=order.delivery_fee,
        created_at=order.created_at,
    )
