"""The menu in a shop's words: agents see their work, owners their shop, developer pages
only for platform operators; "View site" opens the shop's own page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.console.conftest import login

pytestmark = pytest.mark.django_db
DEVELOPER_PAGES = ("Tool calls", "Whats app senders", "Inbound messages", "Tenants")


def _menu(client) -> str:
    page = client.get(reverse("admin:commerce_order_changelist")).content.decode()
    return page.split('id="nav-sidebar"')[1].split("</nav>")[0]


def test_owner_menu_is_the_shop_in_words(tenant, stranger) -> None:
    menu = _menu(login(tenant, "owner_n"))
    shop = ("Inbox", "Products", "Payments to check", "Shop settings", "Orders", "Broadcasts")
    for words in (*shop, "Shopify or WooCommerce store", "Delivery settings"):
        assert words in menu
    for developer in DEVELOPER_PAGES:
        assert developer not in menu
    assert reverse("admin:tenants_tenant_change", args=[tenant.pk]) in menu


def test_agent_menu_is_inbox_customers_orders(tenant, stranger) -> None:
    menu = _menu(login(tenant, "agent_n", "agent"))
    for words in ("Inbox", "Customers", "Orders"):
        assert words in menu
    for words in ("Products", "Shop settings", "Payments to check"):
        assert words not in menu


def test_operator_menu_keeps_developer_pages_apart(tenant, stranger, admin_client) -> None:
    menu = _menu(admin_client)
    assert "Platform (operators only)" in menu
    assert "Tool calls" in menu


def test_view_site_is_the_shops_page(tenant, stranger) -> None:
    page = login(tenant, "owner_v2").get(reverse("admin:commerce_order_changelist"))
    assert f'href="/shop/{tenant.slug}/"' in page.content.decode()
