"""The shop sees its visit counters in admin, and nothing of another shop's."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import add_staff_member, get_or_create_customer
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import CatalogItem
from tulia.commerce.orders import mark_order_paid
from tulia.storefront import visits
from tulia.storefront.models import SourceVisits

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


def test_owner_sees_own_sources_only(tenant: Tenant, stranger: Tenant) -> None:
    visits.count(tenant, "chat", "visits")
    visits.count(tenant, "chat", "order_taps")
    visits.count(stranger, "broadcast-june", "visits")
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


def _order(shop: Tenant, source: str, *, paid: bool, phone: str = "+254712000001") -> None:
    customer, _ = get_or_create_customer(shop.id, phone)
    with tenant_context(shop.id) as tid:
        item = CatalogItem.objects.filter(tenant_id=tid).order_by("pk").first()
        if item is None:
            item = CatalogItem.objects.create(
                tenant_id=tid, sku="TEE-1", name="Tee", price=Decimal("1500"), stock=50
            )
    order = create_order(shop.id, customer.pk, [LineRequest(item.pk, 2)], source=source)
    if paid:
        mark_order_paid(shop.id, order.pk, payment_reference=f"QK{order.pk:08d}")


def test_owner_sees_orders_and_revenue_per_source(tenant: Tenant, stranger: Tenant) -> None:
    visits.count(tenant, "chat", "visits")
    visits.count(tenant, "chat", "order_taps")
    _order(tenant, "chat", paid=True)
    _order(tenant, "chat", paid=False)
    _order(tenant, "qr", paid=True)
    _order(tenant, "", paid=True)  # chosen in the chat: no page source
    _order(stranger, "broadcast-june", paid=True)
    figures = {row.source: row for row in visits.by_source(tenant)}
    assert set(figures) == {"chat", "qr"}
    chat = figures["chat"]
    assert (chat.visits, chat.order_taps, chat.orders, chat.paid_orders) == (1, 1, 2, 1)
    assert chat.revenue == Decimal("3000")
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username="owner_a", password=PASSWORD)
    page = client.get(reverse("admin:storefront_sourcevisits_changelist")).content.decode()
    assert "KES 3,000" in page
    assert "broadcast-june" not in page


@pytest.mark.parametrize(
    ("zone", "day"), [("Africa/Nairobi", date(2026, 3, 2)), ("Africa/Lagos", date(2026, 3, 1))]
)
def test_a_visit_counts_on_the_shops_own_day(make_tenant: Any, zone: str, day: date) -> None:
    shop = make_tenant(timezone=zone)
    late_evening_utc = datetime(2026, 3, 1, 22, 30, tzinfo=UTC)  # 01:30 Nairobi, 23:30 Lagos
    visits.count(shop, "qr", "visits", at=late_evening_utc)
    with tenant_context(shop.id) as tid:
        assert SourceVisits.objects.get(tenant_id=tid).day == day
