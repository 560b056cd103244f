"""The order page as a shop reads it: what was bought, money in KES, the timeline,
one-click steps, no Save or Delete; the CSV of selected orders (owners only)."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib import admin
from django.contrib.admin import ModelAdmin
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.console.conftest import login, paid_order
from tulia.commerce.models import Order
from tulia.commerce.orders import get_order

pytestmark = pytest.mark.django_db


def _page(client, order) -> str:
    response = client.get(reverse("admin:commerce_order_change", args=[order.pk]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("role", ["owner", "agent"])
def test_order_page_shows_size_picture_kes_and_timeline(tenant, stranger, role) -> None:
    order = paid_order(tenant)
    page = _page(login(tenant, f"{role}_o", role), order)
    assert "size 42" in page
    assert 'src="https://img.example.com/am90.jpg"' in page
    assert "KES 9,800" in page
    assert 'class="order-timeline"' in page
    assert "Confirm order" in page
    assert 'name="_save"' not in page
    assert "deletelink" not in page


def test_the_order_list_shows_kes(tenant, stranger) -> None:
    paid_order(tenant)
    page = login(tenant, "owner_k").get(reverse("admin:commerce_order_changelist"))
    assert "KES 9,800" in page.content.decode()


def test_one_click_confirms_and_the_timeline_names_who(tenant, stranger) -> None:
    order = paid_order(tenant)
    client = login(tenant, "owner_m")
    response = client.post(reverse("admin:commerce_order_move", args=[order.pk, "confirmed"]))
    assert response.status_code == 302
    assert get_order(tenant.id, order.pk).status == "confirmed"
    assert "by owner_m" in _page(client, order)


def _export(client, order):
    return client.post(
        reverse("admin:commerce_order_changelist"),
        {"action": "export_csv", "_selected_action": [order.pk]},
    )


def test_owner_downloads_selected_orders_as_csv(tenant, stranger) -> None:
    order = paid_order(tenant)
    response = _export(login(tenant, "owner_x"), order)
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][0] == "reference"
    assert rows[1][0] == order.reference
    assert rows[1][5] == "1 x Shoe" + rows[1][5].removeprefix("1 x Shoe")
    assert "(size 42)" in rows[1][5]
    assert rows[1][8] == "9800.00"


def test_agent_cannot_export_orders(tenant, stranger) -> None:
    order = paid_order(tenant)
    response = _export(login(tenant, "agent_x", "agent"), order)
    assert not response.get("Content-Type", "").startswith("text/csv")


def test_another_shop_cannot_open_the_order(tenant, stranger) -> None:
    order = paid_order(tenant)
    response = login(stranger, "owner_s").get(
        reverse("admin:commerce_order_change", args=[order.pk])
    )
    assert response.status_code == 302  # admin's "does not exist" redirect to the index


def test_the_order_list_filters_by_date_without_reading_every_day(tenant, stranger) -> None:
    """Today / past 7 days as a list filter: no DISTINCT over every order's day (the
    date_hierarchy it replaced read them on every page of a 10,000-order list)."""
    order = paid_order(tenant)
    client = login(tenant, "owner_dates")
    url = reverse("admin:commerce_order_changelist")
    page = client.get(url).content.decode()
    assert "Past 7 days" in page
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    assert not [q for q in queries.captured_queries if "DISTINCT" in q["sql"]]
    midnight = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    today = client.get(url, {"created_at__gte": midnight.isoformat()})
    assert order.reference in today.content.decode()


def test_a_rows_action_box_is_the_html_django_would_render(tenant, stranger) -> None:
    """The list's per-row checkbox is written out (tenants.admin_scoping) instead of
    rendered through widget templates: the same box, name, value and label."""
    order = paid_order(tenant)
    shop_admin = admin.site._registry[Order]
    assert shop_admin.action_checkbox(order) == ModelAdmin.action_checkbox(shop_admin, order)
