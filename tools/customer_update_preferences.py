"""customer_update_preferences: language and consent, every consent change audited."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tenants.accessors import get_customer
from tenants.models import ConsentEvent, Customer
from tenants.services import record_consent
from tools.contract import CustomerToolInput, Tool, ToolFailure
from tools.customer_get_or_create import CustomerOut, customer_fields


class CustomerUpdatePreferencesInput(CustomerToolInput):
    language_preference: Literal["en", "sw", "sheng"] | None = None
    marketing_opt_in: bool | None = None
    notifications_opt_in: bool | None = None
    evidence: str = Field(
        default="", max_length=500, description="The customer's words that asked for this"
    )


class CustomerUpdatePreferencesOutput(CustomerOut):
    consent_events_recorded: int
    had_withdrawn: bool
    """Whether the customer had withdrawn consent before this call: a first START is a
    welcome, a later one a welcome back."""


def _consent_changes(
    customer: Customer, data: CustomerUpdatePreferencesInput
) -> list[tuple[str, bool]]:
    wanted = [
        (ConsentEvent.Kind.MARKETING, data.marketing_opt_in, customer.marketing_opt_in),
        (ConsentEvent.Kind.NOTIFICATIONS, data.notifications_opt_in, customer.notifications_opt_in),
    ]
    # A withdrawal is audited even when the flag was already off: the customer's STOP is
    # the record a shop must be able to show, whatever the default said before.
    return [(kind, new) for kind, new, old in wanted if new is not None and (new != old or not new)]


def _had_withdrawn(customer: Customer) -> bool:
    return ConsentEvent.objects.filter(
        tenant_id=customer.tenant_id,
        customer_id=customer.pk,
        action=ConsentEvent.Action.WITHDRAWN,
    ).exists()


def run(data: CustomerUpdatePreferencesInput) -> CustomerUpdatePreferencesOutput:
    if data.language_preference is None and (
        data.marketing_opt_in is None and data.notifications_opt_in is None
    ):
        raise ToolFailure("invalid_input", "nothing to update")
    customer = get_customer(data.tenant_id, data.customer_id)
    changes = _consent_changes(customer, data)
    had_withdrawn = _had_withdrawn(customer)
    for kind, granted in changes:
        record_consent(
            data.tenant_id,
            customer.pk,
            kind=kind,
            action=ConsentEvent.Action.GRANTED if granted else ConsentEvent.Action.WITHDRAWN,
            source=ConsentEvent.Source.WHATSAPP,
            evidence=data.evidence,
            request_id=data.request_id,
        )
    if data.language_preference is not None:
        Customer.objects.filter(tenant_id=data.tenant_id, pk=customer.pk).update(
            language_preference=data.language_preference
        )
    customer = get_customer(data.tenant_id, data.customer_id)
    return CustomerUpdatePreferencesOutput(
        consent_events_recorded=len(changes),
        had_withdrawn=had_withdrawn,
        **customer_fields(customer),
    )


TOOL = Tool(
    name="customer_update_preferences",
    description=(
        "Change the customer's language or their marketing/notification consent. "
        "Only when the customer asked; quote their words as evidence."
    ),
    input_model=CustomerUpdatePreferencesInput,
    output_model=CustomerUpdatePreferencesOutput,
    run=run,
)
