"""order_set_fulfilment: delivery to an area (its zone's fee) or pickup, on an unpaid order."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.contract import CustomerToolInput, Tool
from tools.schemas import OrderOut, order_out
from tulia.commerce.fulfilment import set_fulfilment


class OrderSetFulfilmentInput(CustomerToolInput):
    order_id: int = Field(gt=0)
    method: Literal["delivery", "pickup"]
    area: str = Field(default="", max_length=300)


def run(data: OrderSetFulfilmentInput) -> OrderOut:
    order = set_fulfilment(data.tenant_id, data.order_id, data.customer_id, data.method, data.area)
    return order_out(order)


TOOL = Tool(
    name="order_set_fulfilment",
    description=(
        "Choose delivery (with the customer's area/address; the shop's zone fee is added "
        "to the total) or pickup at the shop for an unpaid order."
    ),
    input_model=OrderSetFulfilmentInput,
    output_model=OrderOut,
    run=run,
)
