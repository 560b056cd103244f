"""payment_create_pesapal_checkout: a card payment link for the confirmed order total."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from payments.pesapal.checkout import create_checkout
from payments.tools._common import customers_order_id
from tools.contract import CustomerToolInput, Tool, ToolOutput


class PaymentCreatePesapalCheckoutInput(CustomerToolInput):
    order_id: int = Field(gt=0)
    confirmed_amount_kes: int = Field(gt=0, description="Must equal the order total")
    attempt: int = Field(default=1, ge=1, le=20)


class PaymentCreatePesapalCheckoutOutput(ToolOutput):
    payment_id: int
    status: str
    amount_kes: int
    checkout_url: str


def run(data: PaymentCreatePesapalCheckoutInput) -> PaymentCreatePesapalCheckoutOutput:
    order_id = customers_order_id(data.tenant_id, data.customer_id, data.order_id)
    payment = create_checkout(
        data.tenant_id,
        order_id,
        confirmed_amount=Decimal(data.confirmed_amount_kes),
        attempt=data.attempt,
    )
    return PaymentCreatePesapalCheckoutOutput(
        payment_id=payment.pk,
        status=payment.status,
        amount_kes=int(payment.amount),
        checkout_url=payment.redirect_url,
    )


TOOL = Tool(
    name="payment_create_pesapal_checkout",
    description="Create a PesaPal card payment link for an order after the total is confirmed.",
    input_model=PaymentCreatePesapalCheckoutInput,
    output_model=PaymentCreatePesapalCheckoutOutput,
    run=run,
)
