"""payment_initiate_stk_push: send the M-Pesa prompt for the amount the customer confirmed."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from payments.mpesa.stk import initiate_stk_push
from payments.tools._common import customers_order_id
from tools.contract import CustomerToolInput, Tool, ToolOutput


class PaymentInitiateStkPushInput(CustomerToolInput):
    order_id: int = Field(gt=0)
    confirmed_amount_kes: int = Field(
        gt=0, description="The total the customer explicitly confirmed; must equal the order's"
    )
    attempt: int = Field(default=1, ge=1, le=20, description="1, or higher for a retry")
    phone: str = Field(default="", max_length=32, description="Blank: the customer's number")


class PaymentInitiateStkPushOutput(ToolOutput):
    payment_id: int
    status: str
    amount_kes: int
    checkout_request_id: str


def run(data: PaymentInitiateStkPushInput) -> PaymentInitiateStkPushOutput:
    order_id = customers_order_id(data.tenant_id, data.customer_id, data.order_id)
    payment = initiate_stk_push(
        data.tenant_id,
        order_id,
        confirmed_amount=Decimal(data.confirmed_amount_kes),
        attempt=data.attempt,
        phone=data.phone,
    )
    return PaymentInitiateStkPushOutput(
        payment_id=payment.pk,
        status=payment.status,
        amount_kes=int(payment.amount),
        checkout_request_id=payment.provider_reference,
    )


TOOL = Tool(
    name="payment_initiate_stk_push",
    description=(
        "Send an M-Pesa payment prompt to the customer's phone for an order, only after they "
        "confirmed the exact total. The result arrives later; read it from the payment record."
    ),
    input_model=PaymentInitiateStkPushInput,
    output_model=PaymentInitiateStkPushOutput,
    run=run,
)
