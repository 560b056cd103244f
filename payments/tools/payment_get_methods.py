"""payment_get_methods: which ways to pay this shop offers right now."""

from __future__ import annotations

from uuid import UUID

from django.db.models import Value
from pydantic import Field

from payments.models import MpesaAccount, PaymentMethod, PesapalAccount
from tenants.accessors import get_tenant
from tools.contract import Tool, ToolInput, ToolOutput


def _configured(tenant_id: UUID) -> set[str]:
    """Methods whose provider account exists: enabled but unconfigured is not offered."""
    # One round trip for both accounts: this tool runs on every payment question.
    mpesa_rows = MpesaAccount.objects.filter(tenant_id=tenant_id).annotate(account=Value("mpesa"))
    card_rows = PesapalAccount.objects.filter(tenant_id=tenant_id).annotate(account=Value("card"))
    kinds = set(
        mpesa_rows.values_list("account", flat=True)[:1].union(
            card_rows.values_list("account", flat=True)[:1]
        )
    )
    mpesa, card = "mpesa" in kinds, "card" in kinds
    return {
        code
        for code, ready in (
            (PaymentMethod.MPESA_STK, mpesa),
            (PaymentMethod.MPESA_C2B, mpesa),
            (PaymentMethod.PESAPAL_CARD, card),
        )
        if ready
    }


class PaymentGetMethodsInput(ToolInput):
    pass


class MethodOut(ToolOutput):
    code: str
    label: str


class PaymentGetMethodsOutput(ToolOutput):
    methods: list[MethodOut] = Field(description="Enabled and configured, in the shop's order")


def run(data: PaymentGetMethodsInput) -> PaymentGetMethodsOutput:
    tenant = get_tenant(data.tenant_id)
    ready = _configured(tenant.pk)
    methods = [
        MethodOut(code=code, label=str(PaymentMethod(code).label))
        for code in tenant.payment_methods
        if code in ready
    ]
    return PaymentGetMethodsOutput(methods=methods)


TOOL = Tool(
    name="payment_get_methods",
    description="List the payment methods this shop accepts (M-Pesa prompt, Paybill/Till, card).",
    input_model=PaymentGetMethodsInput,
    output_model=PaymentGetMethodsOutput,
    run=run,
)
