"""order_get_status: where one of the customer's orders stands, with its history."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field, model_validator

from payments.models import PaymentRequest
from tenants.errors import NotFound
from tools.contract import CustomerToolInput, Tool, ToolOutput
from tools.schemas import OrderOut, order_out
from tulia.commerce.models import Order


class OrderGetStatusInput(CustomerToolInput):
    order_id: int | None = Field(default=None, gt=0)
    reference: str | None = Field(default=None, min_length=4, max_length=12)
    with_payment: bool = Field(
        default=False, description="Also how the latest payment attempt stands, while unpaid"
    )

    @model_validator(mode="after")
    def _one_key(self) -> OrderGetStatusInput:
        if (self.order_id is None) == (self.reference is None):
            raise ValueError("give exactly one of order_id or reference")
        return self


class StatusChange(ToolOutput):
    from_status: str | None
    to_status: str
    at: datetime


class OrderGetStatusOutput(ToolOutput):
    order: OrderOut
    paid: bool
    paid_at: datetime | None
    payment_receipt: str | None
    """The provider's receipt for the payment (the M-Pesa code), once paid."""
    # The latest step and when it happened, and the rider/courier note once shipped
    # ("where is my order?" answers from these).
    status_at: datetime | None
    tracking_note: str | None
    history: list[StatusChange]
    last_payment_status: str | None = None
    """The latest payment attempt's status as recorded (pending, failed, cancelled,
    timeout...) when asked `with_payment` and the order is unpaid; else None."""


def _last_payment_status(order: Order) -> str | None:
    # In the tool's own transaction: the payment record, never inferred (Property 7).
    return (
        PaymentRequest.objects.filter(tenant_id=order.tenant_id, order_id=order.pk)
        .order_by("-created_at", "-id")
        .values_list("status", flat=True)
        .first()
    )


def run(data: OrderGetStatusInput) -> OrderGetStatusOutput:
    # Only the customer's own orders: another customer's reference reads as not found.
    orders = Order.objects.filter(tenant_id=data.tenant_id, customer_id=data.customer_id)
    if data.order_id is not None:
        order = orders.filter(pk=data.order_id).first()
    else:
        order = orders.filter(reference=(data.reference or "").strip().upper()).first()
    if order is None:
        raise NotFound("order not found")
    history = [
        StatusChange(from_status=e.from_status or None, to_status=e.to_status, at=e.created_at)
        for e in order.history.order_by("id")
    ]
    return OrderGetStatusOutput(
        order=order_out(order),
        paid=order.paid_at is not None,
        paid_at=order.paid_at,
        payment_receipt=(order.payment_reference or None) if order.paid_at else None,
        status_at=history[-1].at if history else None,
        tracking_note=order.tracking_note or None,
        history=history,
        last_payment_status=(
            _last_payment_status(order) if data.with_payment and not order.paid_at else None
        ),
    )


TOOL = Tool(
    name="order_get_status",
    description="Get the status, totals and payment state of one of the customer's orders.",
    input_model=OrderGetStatusInput,
    output_model=OrderGetStatusOutput,
    run=run,
)
