"""The shop sees its visit counters in admin, and nothing of another shop's."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tenants.models import Tenant
from tenants.services import add_staff_member
from tulia.storefront import visits

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


def test_owner_sees_own_sources_only(tenant: Tenant, stranger: Tenant) -> None:
    visits.count(tenant.id, "chat", "visits")
    visits.count(tenant.id, "chat", "order_taps")
    visits.count(stranger.id, "broadcast-june", "visits")
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username="owner_a", password=PASSWORD)
    page = client.get(reverse("admin:storefront_sourcevisits_changelist")).content.decode()
    assert "chat" in page
    assert "broadcast-june" not in page


def test_counters_cannot_be_edited_in_admin(tenant: Tenant) -> None:
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username="owner_a", password=PASSWORD)
    assert client.get(reverse("admin:storefront_sourcevisits_add")).status_code == 403
