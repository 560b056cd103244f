"""customer_get_or_create: the shop's customer for a WhatsApp number."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from django.utils import timezone
from pydantic import Field

from tenants.accessors import tenant_scope
from tenants.models import Customer
from tenants.phone import InvalidPhoneNumber, normalize_phone
from tenants.services import get_or_create_customer
from tools.contract import Tool, ToolFailure, ToolInput, ToolOutput

LAST_SEEN_PRECISION = timedelta(minutes=1)


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
        customer = _returning(data.tenant_id, normalize_phone(data.phone), data.display_name)
        created = False
        if customer is None:
            customer, created = get_or_create_customer(
                data.tenant_id, data.phone, display_name=data.display_name
            )
    except InvalidPhoneNumber as exc:
        raise ToolFailure("invalid_input", str(exc)) from exc
    return CustomerGetOrCreateOutput(created=created, **customer_fields(customer))


def _returning(tenant_id: UUID, e164: str, display_name: str) -> Customer | None:
    """A known customer, seen again: two statements in the runner's open context.

    Every turn asks for its customer, nearly always one we know; get_or_create_customer
    (with its own nested context and savepoint) is kept for the first contact.
    """
    with tenant_scope(tenant_id) as tid:
        customer = Customer.objects.filter(tenant_id=tid, phone_e164=e164).first()
        if customer is None:
            return None
        updates = _changes(customer, display_name)
        if updates:
            Customer.objects.filter(tenant_id=tid, pk=customer.pk).update(**updates)
    for name, value in updates.items():
        setattr(customer, name, value)
    return customer


def _changes(customer: Customer, display_name: str) -> dict[str, object]:
    """What to write back: a name we lacked, and last_seen unless it is already fresh
    (to the minute; every turn of a conversation would otherwise write it again)."""
    now = timezone.now()
    updates: dict[str, object] = {}
    if customer.last_seen is None or now - customer.last_seen >= LAST_SEEN_PRECISION:
        updates["last_seen"] = now
    if display_name and not customer.display_name:
        updates["display_name"] = display_name[:120]
    return updates


TOOL = Tool(
    name="customer_get_or_create",
    description="Find the shop's customer by phone number, creating them on first contact.",
    input_model=CustomerGetOrCreateInput,
    output_model=CustomerGetOrCreateOutput,
    run=run,
)
