"""Builders for handoff tests: customers with open conversations, agents with presence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from itertools import count
from typing import Any

import pytest
from django.contrib.auth.models import AbstractUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import add_staff_member, get_or_create_customer
from tulia.conversations.models import Conversation
from tulia.conversations.services import open_conversation
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import AgentPresence, Category

_numbers = count(100)


def make_conversation(tenant: Tenant, *, state: dict[str, Any] | None = None) -> Conversation:
    customer, _ = get_or_create_customer(tenant.id, f"07120{next(_numbers):05d}")
    sender = active_senders(tenant.id)[0]
    conversation = open_conversation(tenant.id, customer.pk, sender.pk)
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(
            state=state or {"journey": "sales", "step": "select_item"},
            last_inbound_at=timezone.now() - timedelta(minutes=5),
        )
        conversation.refresh_from_db()
    return conversation


def make_agent(tenant: Tenant, name: str, presence: str = "online", **extra: Any) -> Any:
    user = add_staff_member(
        tenant.id,
        username=f"{name}-{tenant.slug}",
        password="x-Pass-1234",
        role="agent",
        display_name=name.title(),
    )
    with tenant_context(tenant.id) as tid:
        AgentPresence.objects.create(tenant_id=tid, user_id=user.pk, status=presence, **extra)
    return user


def status_of(tenant: Tenant, conversation_id: int) -> str:
    with tenant_context(tenant.id):
        return Conversation.objects.get(pk=conversation_id).status


@pytest.fixture
def conversation(tenant: Tenant) -> Conversation:
    return make_conversation(tenant)


@pytest.fixture
def agent_factory() -> Callable[..., AbstractUser]:
    return make_agent


@pytest.fixture
def ticket_id(tenant: Tenant, conversation: Conversation) -> int:
    """A customer waiting in the queue for a person (one agent online)."""
    make_agent(tenant, "carol")  # someone online, so the customer is queued
    found = escalate(tenant.id, conversation.pk, HandoffRequest("person", Category.KEYWORD))
    assert found.ticket_id is not None
    return found.ticket_id


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def desk_url(ticket_id: int) -> str:
    return reverse("admin:handoff_desk", args=[ticket_id])


def make_order(
    tenant: Tenant,
    conversation: Conversation,
    reference: str,
    *,
    delivered_days_ago: int | None = 5,
    category: str = "shoes",
    item_attributes: dict[str, Any] | None = None,
) -> Any:
    """An order of one line for the conversation's customer, delivered N days ago."""
    from decimal import Decimal

    from tulia.commerce.models import CatalogItem, Category, Order, OrderLine, OrderStatusEvent

    with tenant_context(tenant.id) as tid:
        shelf, _ = Category.objects.get_or_create(
            tenant_id=tid, slug=category, defaults={"name": category}
        )
        item = CatalogItem.objects.create(
            tenant_id=tid,
            sku=f"{reference}-SKU",
            name="Air Force 1",
            category=shelf,
            price=Decimal("4500"),
            attributes=item_attributes or {},
        )
        order = Order.objects.create(
            tenant_id=tid,
            customer_id=conversation.customer_id,
            reference=reference,
            status="delivered" if delivered_days_ago is not None else "paid",
            subtotal=Decimal("4500"),
            total=Decimal("4500"),
        )
        OrderLine.objects.create(
            tenant_id=tid,
            order=order,
            item=item,
            name=item.name,
            sku=item.sku,
            unit_price=item.price,
            quantity=1,
            line_total=item.price,
        )
        if delivered_days_ago is not None:
            event = OrderStatusEvent.objects.create(
                tenant_id=tid, order=order, from_status="shipped", to_status="delivered"
            )
            OrderStatusEvent.objects.filter(pk=event.pk).update(
                created_at=timezone.now() - timedelta(days=delivered_days_ago)
            )
    return order
