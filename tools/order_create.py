"""order_create: a draft order priced by the server from the catalog as it is now.

Idempotent per request id: the gateway retries a turn that failed half-way with the
same request id, and that retry must get the order the first attempt made, not a
second one. The first attempt's success is in the tool-call audit trail, written in
the same transaction as the order; an advisory lock on (tenant, request id) makes a
concurrent retry wait for that transaction and then find it.
"""

from __future__ import annotations

from django.db import connection
from pydantic import BaseModel, ConfigDict, Field

from tools.contract import CustomerToolInput, Tool
from tools.models import ToolCall
from tools.schemas import OrderOut, order_out
from tulia.commerce.checkout import LineRequest, create_order_with_lines
from tulia.commerce.models import Order

NAME = "order_create"


class OrderLineIn(BaseModel):
    # No price field: prices always come from the catalog.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    item_id: int = Field(gt=0)
    variant_id: int | None = Field(default=None, gt=0)
    quantity: int = Field(ge=1, le=99)


class OrderCreateInput(CustomerToolInput):
    lines: list[OrderLineIn] = Field(min_length=1, max_length=20)
    # The shop page's source tag when the selection came from its code; empty otherwise.
    source: str = Field(default="", pattern=r"^([a-z0-9][a-z0-9_-]{0,39})?$")


def run(data: OrderCreateInput) -> OrderOut:
    _one_at_a_time(data)
    earlier = _created_earlier(data)
    if earlier is not None:
        return order_out(earlier)
    order, lines = create_order_with_lines(
        data.tenant_id,
        data.customer_id,
        [LineRequest(line.item_id, line.quantity, line.variant_id) for line in data.lines],
        conversation_id=data.conversation_id,
        source=data.source,
    )
    return order_out(order, lines)


def _one_at_a_time(data: OrderCreateInput) -> None:
    """Held until the call's transaction ends, so a twin call sees its audit row."""
    key = f"{NAME}:{data.tenant_id}:{data.request_id}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])


def _created_earlier(data: OrderCreateInput) -> Order | None:
    """The order an earlier successful call with this request id made for this customer."""
    outputs = (
        ToolCall.objects.filter(
            tenant_id=data.tenant_id,
            tool=NAME,
            request_id=data.request_id,
            outcome=ToolCall.Outcome.OK,
        )
        .order_by("id")
        .values_list("outputs", flat=True)
    )
    for recorded in outputs:
        order_id = (recorded.get("output") or {}).get("order_id")
        if not isinstance(order_id, int):
            continue
        order = Order.objects.filter(
            tenant_id=data.tenant_id, customer_id=data.customer_id, pk=order_id
        ).first()
        if order is not None:
            return order
    return None


TOOL = Tool(
    name=NAME,
    description=(
        "Create a draft order for the customer from catalog item ids (and variant ids for "
        "sizes/colours) and quantities. Prices and totals are computed by the shop. "
        "`source` is the shop page's tag from the product code the customer sent, if any. "
        "Calling it again with the same request id returns the same order."
    ),
    input_model=OrderCreateInput,
    output_model=OrderOut,
    run=run,
)
