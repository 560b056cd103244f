"""order_create: a draft order priced by the server from the catalog as it is now."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools.contract import CustomerToolInput, Tool
from tools.schemas import OrderOut, order_out
from tulia.commerce.checkout import LineRequest, create_order


class OrderLineIn(BaseModel):
    # No price field: prices always come from the catalog.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    item_id: int = Field(gt=0)
    variant_id: int | None = Field(default=None, gt=0)
    quantity: int = Field(ge=1, le=99)


class OrderCreateInput(CustomerToolInput):
    lines: list[OrderLineIn] = Field(min_length=1, max_length=20)


def run(data: OrderCreateInput) -> OrderOut:
    order = create_order(
        data.tenant_id,
        data.customer_id,
        [LineRequest(line.item_id, line.quantity, line.variant_id) for line in data.lines],
        conversation_id=data.conversation_id,
    )
    return order_out(order)


TOOL = Tool(
    name="order_create",
    description=(
        "Create a draft order for the customer from catalog item ids (and variant ids for "
        "sizes/colours) and quantities. Prices and totals are computed by the shop."
    ),
    input_model=OrderCreateInput,
    output_model=OrderOut,
    run=run,
)
