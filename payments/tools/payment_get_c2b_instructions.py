"""payment_get_c2b_instructions: how to pay an order by Paybill or Till, from the record."""

from __future__ import annotations

from pydantic import Field

from payments.mpesa.c2b import c2b_instructions
from payments.tools._common import customers_order_id
from tools.contract import CustomerToolInput, Tool, ToolOutput


class PaymentGetC2BInstructionsInput(CustomerToolInput):
    order_id: int = Field(gt=0)


class PaymentGetC2BInstructionsOutput(ToolOutput):
    kind: str = Field(description="paybill or till")
    business_number: str
    account_reference: str = Field(description="Empty for a till")
    amount_kes: int
    currency: str


def run(data: PaymentGetC2BInstructionsInput) -> PaymentGetC2BInstructionsOutput:
    order_id = customers_order_id(data.tenant_id, data.customer_id, data.order_id)
    found = c2b_instructions(data.tenant_id, order_id)
    return PaymentGetC2BInstructionsOutput(
        kind=found.kind,
        business_number=found.business_number,
        account_reference=found.account_reference,
        amount_kes=found.amount,
        currency=found.currency,
    )


TOOL = Tool(
    name="payment_get_c2b_instructions",
    description="Paybill/Till number, account reference and amount for paying an order by M-Pesa.",
    input_model=PaymentGetC2BInstructionsInput,
    output_model=PaymentGetC2BInstructionsOutput,
    run=run,
)
