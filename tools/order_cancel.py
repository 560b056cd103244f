"""order_cancel: the customer cancels one of their orders before it ships.

Through the lifecycle's one door (`move_order`), so stock comes back and a paid order
is marked as owed a refund exactly as when staff cancel. The reply in the conversation
tells the customer, so the lifecycle's own notice is not sent a second time.
"""

from __future__ import annotations

from pydantic import Field

from tenants.errors import NotFound
from tools.contract import CustomerToolInput, Tool, ToolFailure, ToolOutput
from tulia.commerce.errors import OrderStateError
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import Order, OrderStatus


class OrderCancelInput(CustomerToolInput):
    reference: str = Field(min_length=4, max_length=12)


class OrderCancelOutput(ToolOutput):
    order_id: int
    reference: str
    status: str
    refund_due: bool


def run(data: OrderCancelInput) -> OrderCancelOutput:
    order = Order.objects.filter(
        tenant_id=data.tenant_id,
        customer_id=data.customer_id,
        reference=data.reference.strip().upper(),
    ).first()
    if order is None:
        raise NotFound("order not found")
    if order.status in (OrderStatus.SHIPPED, OrderStatus.DELIVERED, OrderStatus.CANCELLED):
        raise ToolFailure("order_not_cancellable", f"order is {order.status}", status=order.status)
    try:
        moved = move_order(
            data.tenant_id,
            order.pk,
            OrderStatus.CANCELLED,
            actor=f"customer:{data.customer_id}",
            note="cancelled by the customer in chat",
            notify=False,
        )
    except OrderStateError as exc:  # a staff move won the race: it is no longer open
        raise ToolFailure("order_not_cancellable", str(exc), status=order.status) from exc
    return OrderCancelOutput(
        order_id=moved.pk,
        reference=moved.reference,
        status=moved.status,
        refund_due=moved.refund_due,
    )


TOOL = Tool(
    name="order_cancel",
    description=(
        "Cancel one of the customer's own orders by reference, only before it has shipped. "
        "Ask the customer to confirm first; a paid order is then owed a refund."
    ),
    input_model=OrderCancelInput,
    output_model=OrderCancelOutput,
    run=run,
)
