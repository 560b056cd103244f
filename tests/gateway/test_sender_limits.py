"""Sender messaging tiers: unique customers reached in 24 hours, with room kept for utility."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Customer
from tenants.services import record_consent
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.whatsapp import limits, templates
from tulia.whatsapp.models import MessageTemplate, SenderLimit
from tulia.whatsapp.outbound import queue_template, send_to_customer

from .window_support import customer_who_just_wrote

pytestmark = pytest.mark.django_db
Status = OutboundMessage.Status
TEMPLATE_SID = "HX" + "1" * 32


@pytest.fixture
def shop(tenant, settings):
    settings.TULIA_TWILIO_API_BASE = None
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    templates.install_starter_templates(tenant.id)  # the console stand-in approves them
    return tenant


def _already_reached(tenant, count: int, hours_ago: float = 1) -> None:
    """`count` customers got a template through the sender `hours_ago` hours ago."""
    sender = active_senders(tenant.id)[0]
    with tenant_context(tenant.id) as tid:
        customers = Customer.objects.bulk_create(
            Customer(tenant_id=tid, phone_e164=f"+25471{n:07d}") for n in range(count)
        )
        threads = Conversation.objects.bulk_create(
            Conversation(tenant_id=tid, customer=c, sender=sender) for c in customers
        )
        rows = OutboundMessage.objects.bulk_create(
            OutboundMessage(tenant_id=tid, conversation=t, body="x", content_sid=TEMPLATE_SID,
                            category="utility", status=Status.SENT)
            for t in threads
        )  # fmt: skip
        when = timezone.now() - timedelta(hours=hours_ago)
        OutboundMessage.objects.filter(pk__in=[r.pk for r in rows]).update(created_at=when)


def _marketing(tenant) -> MessageTemplate:
    with tenant_context(tenant.id) as tid:
        return MessageTemplate.objects.create(
            tenant_id=tid, name="sale", language="en", category="marketing",
            body="Hello! {{1}} off this week. Reply STOP to opt out.", examples={"1": "10%"},
            content_sid=TEMPLATE_SID, status=MessageTemplate.Status.APPROVED,
        )  # fmt: skip


def _new_customer_outside_window(tenant) -> Conversation:
    customer = customer_who_just_wrote(tenant.id, "+254799000001")
    record_consent(tenant.id, customer.pk, kind="marketing", action="granted", source="whatsapp")
    with tenant_context(tenant.id):
        Conversation.objects.update(last_inbound_at=timezone.now() - timedelta(hours=25))
        return Conversation.objects.get(customer=customer)


def _status(tenant, ids: list[int]) -> tuple[str, str]:
    with tenant_context(tenant.id):
        row = OutboundMessage.objects.get(pk=ids[0])
    return row.status, row.error_message


def test_marketing_stops_at_the_reserve_while_utility_still_goes(shop) -> None:
    _already_reached(shop, 200)  # 80% of the 250 tier
    conversation = _new_customer_outside_window(shop)
    ids = queue_template(shop.id, conversation.pk, _marketing(shop).pk, {"1": "10%"}, "m-1")
    status, why = _status(shop, ids)
    assert status == Status.NOT_SENT
    assert "200 of 200 (the rest is kept for utility messages)" in why
    facts = {"order": "KIC-9", "details": "rider Juma"}
    ids = send_to_customer(
        shop.id, conversation.customer_id, ["x"], "u-1", purpose="order_shipped", facts=facts
    )
    assert _status(shop, ids)[0] == Status.PENDING


def test_utility_stops_at_the_whole_tier(shop) -> None:
    _already_reached(shop, 250)
    conversation = _new_customer_outside_window(shop)
    facts = {"order": "KIC-9"}
    ids = send_to_customer(
        shop.id, conversation.customer_id, ["x"], "u-2", purpose="order_delivered", facts=facts
    )
    status, why = _status(shop, ids)
    assert status == Status.NOT_SENT
    assert "messaging limit is reached: 250 of 250" in why


def test_a_customer_already_reached_costs_nothing_more(shop) -> None:
    _already_reached(shop, 250)
    with tenant_context(shop.id):
        first = Conversation.objects.order_by("id").first()
        assert first is not None
    ids = send_to_customer(
        shop.id, first.customer_id, ["x"], "u-3", purpose="order_delivered", facts={"order": "K"}
    )
    assert _status(shop, ids)[0] == Status.PENDING


def test_reach_older_than_24_hours_no_longer_counts(shop) -> None:
    _already_reached(shop, 250, hours_ago=25)
    conversation = _new_customer_outside_window(shop)
    ids = queue_template(shop.id, conversation.pk, _marketing(shop).pk, {"1": "10%"}, "m-2")
    assert _status(shop, ids)[0] == Status.PENDING
    limit = limits.limit_for(shop.id, conversation.sender_id)
    assert limits.usage(limit).used == 1


def test_unlimited_tier_never_refuses(shop) -> None:
    _already_reached(shop, 300)
    conversation = _new_customer_outside_window(shop)
    limit = limits.limit_for(shop.id, conversation.sender_id)
    with tenant_context(shop.id):
        SenderLimit.objects.filter(pk=limit.pk).update(tier=SenderLimit.Tier.UNLIMITED)
    ids = queue_template(shop.id, conversation.pk, _marketing(shop).pk, {"1": "10%"}, "m-3")
    assert _status(shop, ids)[0] == Status.PENDING
