"""Campaign fixtures: the Twilio emulator, an approved marketing template, customers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tenants.context import tenant_context
from tenants.models import Customer, Tenant, WhatsAppSender
from tenants.services import get_or_create_customer, record_consent
from tests.conftest import TWILIO_SID_A, TWILIO_SID_B
from tulia.campaigns.models import Campaign, MessagingSettings
from tulia.campaigns.schedule import messaging_settings
from tulia.whatsapp import templates
from tulia.whatsapp.emulator import TwilioEmulator
from tulia.whatsapp.models import MessageTemplate

TOKEN_A = "token-a-123456789"
SALE_BODY = "Hi! Our {{1}} sale is on at Kicks. Reply STOP to opt out."


@pytest.fixture
def twilio(settings: Any) -> Iterator[TwilioEmulator]:
    with TwilioEmulator() as emulator:
        emulator.add_account(TWILIO_SID_A, TOKEN_A)
        emulator.add_account(TWILIO_SID_B, "token-b-987654321")
        settings.TULIA_TWILIO_API_BASE = emulator.base_url
        settings.TULIA_WHATSAPP_BACKEND = ""
        yield emulator


def approved_template(
    tenant: Tenant,
    twilio: TwilioEmulator,
    *,
    name: str = "weekend_sale",
    category: str = "marketing",
    purpose: str = "",
    body: str = SALE_BODY,
    examples: dict[str, str] | None = None,
) -> MessageTemplate:
    """A template created at the emulator's Content API, submitted, approved, synced."""
    with tenant_context(tenant.id) as tid:
        template = MessageTemplate(
            tenant_id=tid, name=name, language="en", category=category, purpose=purpose,
            body=body, examples=examples or {"1": "weekend"},
        )  # fmt: skip
        template.full_clean()
        template.save()
    submitted = templates.submit(tenant.id, template.pk)
    twilio.approve(submitted.content_sid)
    return templates.sync(tenant.id, template.pk)


@pytest.fixture
def sale_template(tenant: Tenant, twilio: TwilioEmulator) -> MessageTemplate:
    return approved_template(tenant, twilio)


def add_customers(
    tenant: Tenant, count: int, *, opted_in: bool = True, start: int = 0, **fields: Any
) -> list[Customer]:
    made = []
    for n in range(start, start + count):
        customer, _ = get_or_create_customer(tenant.id, f"+2547{n:08d}")
        if fields:
            with tenant_context(tenant.id):
                Customer.objects.filter(pk=customer.pk).update(**fields)
        if opted_in:
            record_consent(
                tenant.id, customer.pk, kind="marketing", action="granted", source="admin"
            )
        made.append(customer)
    return made


@pytest.fixture
def make_campaign(tenant: Tenant, sale_template: MessageTemplate) -> Callable[..., Campaign]:
    def build(**fields: Any) -> Campaign:
        with tenant_context(tenant.id) as tid:
            sender = WhatsAppSender.objects.get(tenant_id=tid)
            values = {
                "name": "Weekend sale", "template": sale_template, "sender": sender,
                "variables": {"1": "weekend"}, "rate_per_second": 80,
            } | fields  # fmt: skip
            campaign = Campaign(tenant_id=tid, **values)
            campaign.full_clean()
            campaign.save()
            return campaign

    return build


@pytest.fixture(autouse=True)
def no_quiet_hours(request: pytest.FixtureRequest) -> None:
    """Tests run at any hour: quiet hours are off unless a test sets them."""
    if "tenant" not in request.fixturenames:
        return
    tenant = request.getfixturevalue("tenant")
    rules = messaging_settings(tenant.id)
    with tenant_context(tenant.id):
        MessagingSettings.objects.filter(pk=rules.pk).update(
            quiet_from="00:00", quiet_until="00:00"
        )
