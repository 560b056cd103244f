"""Customers read an agent's display name (else first name), never the login.

An agent's late reply (the "agent reply waiting" template) names the agent the same
way: tests/gateway/test_window_paths.py."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tenants.context import tenant_context
from tenants.models import Tenant, TenantMembership
from tenants.services import add_staff_member
from tulia.conversations.models import OutboundMessage
from tulia.handoff.models import AgentPresence

from .conftest import client_for, desk_url

pytestmark = pytest.mark.django_db

LOGIN = "mboga_agent"


def _agent(tenant: Tenant, first_name: str = "") -> Any:
    """Staff as the demo seeds them: a login, no display name."""
    user = add_staff_member(tenant.id, username=LOGIN, password="x-Pass-1234", role="agent")
    get_user_model().objects.filter(pk=user.pk).update(first_name=first_name)
    with tenant_context(tenant.id) as tid:
        AgentPresence.objects.create(tenant_id=tid, user_id=user.pk, status="online")
    user.refresh_from_db()
    return user


def _sent(tenant: Tenant) -> list[OutboundMessage]:
    with tenant_context(tenant.id):
        return list(OutboundMessage.objects.order_by("id"))


def test_joined_notice_uses_first_name_not_login(tenant, ticket_id) -> None:
    client_for(_agent(tenant, first_name="Achieng")).post(desk_url(ticket_id), {"op": "claim"})
    assert [m.body for m in _sent(tenant)] == ["Achieng from our team has joined the chat."]


def test_without_any_name_the_customer_reads_someone_from_the_team(tenant, ticket_id) -> None:
    client_for(_agent(tenant)).post(desk_url(ticket_id), {"op": "claim"})
    (joined,) = _sent(tenant)
    assert LOGIN not in joined.body
    assert joined.body.startswith("Someone")


def test_display_name_set_in_the_desk_is_what_customers_read(tenant, ticket_id) -> None:
    agent = _agent(tenant, first_name="Achieng")
    client = client_for(agent)
    client.post(desk_url(ticket_id), {"op": "display_name", "display_name": "  Mama  Achieng "})
    with tenant_context(tenant.id):
        assert TenantMembership.objects.get(user=agent).display_name == "Mama Achieng"
    client.post(desk_url(ticket_id), {"op": "claim"})
    assert [m.body for m in _sent(tenant)] == ["Mama Achieng from our team has joined the chat."]
