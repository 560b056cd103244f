"""order_apply_coupon: apply a coupon code to the customer's open order."""

from __future__ import annotations

from pydantic import Field

from tools.contract import CustomerToolInput, Tool
from tools.schemas import OrderOut, order_out
from tulia.commerce.offers import apply_coupon


class OrderApplyCouponInput(CustomerToolInput):
    order_id: int = Field(gt=0)
    code: str = Field(min_length=3, max_length=32)


def run(data: OrderApplyCouponInput) -> OrderOut:
    order = apply_coupon(data.tenant_id, data.order_id, data.code, data.customer_id)
    return order_out(order)


TOOL = Tool(
    name="order_apply_coupon",
    description="Apply a coupon code to the customer's unpaid order; returns the new totals.",
    input_model=OrderApplyCouponInput,
    output_model=OrderOut,
    run=run,
)
