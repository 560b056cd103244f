"""customer_get_or_create: the shop's customer for a WhatsApp number."""

from __future__ import annotations

from pydantic import Field

from tenants.models import Customer
from tenants.phone import InvalidPhoneNumber
from tenants.services import get_or_create_customer
from tools.contract import Tool, ToolFailure, ToolInput, ToolOutput


class CustomerGetOrCreateInput(ToolInput):
    phone: str = Field(min_length=5, max_length=32, description="The customer's phone number")
    display_name: str = Field(default="", max_length=120)


class CustomerOut(ToolOutput):
    customer_id: int
    phone_e164: str
    display_name: str
    language_preference: str | None
    marketing_opt_in: bool
    notifications_opt_in: bool
    tags: list[str]


class CustomerGetOrCreateOutput(CustomerOut):
    created: bool


def customer_fields(customer: Customer) -> dict[str, object]:
    return {
        "customer_id": customer.pk,
        "phone_e164": customer.phone_e164,
        "display_name": customer.display_name,
        "language_preference": customer.language_preference or None,
        "marketing_opt_in": customer.marketing_opt_in,
        "notifications_opt_in": customer.notifications_opt_in,
        "tags": list(customer.tags),
    }


def run(data: CustomerGetOrCreateInput) -> CustomerGetOrCreateOutput:
    try:
        customer, created = get_or_create_customer(
            data.tenant_id, data.phone, display_name=data.display_name
        )
    except InvalidPhoneNumber as exc:
        raise ToolFailure("invalid_input", str(exc)) from exc
    return CustomerGetOrCreateOutput(created=created, **customer_fields(customer))


TOOL = Tool(
    name="customer_get_or_create",
    description="Find the shop's customer by phone number, creating them on first contact.",
    input_model=CustomerGetOrCreateInput,
    output_model=CustomerGetOrCreateOutput,
    run=run,
)
