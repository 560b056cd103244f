"""An owner's morning in a real Chromium: the day on the home page → ship an order →
change a size's stock → set business hours → match a payment; then a Swahili-speaking
owner, and the same pages at 390 px with no sideways scroll."""

from __future__ import annotations

import os
import threading
from datetime import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from payments.inbox import store_event
from payments.models import PaymentEvent
from payments.mpesa.handlers import handle_c2b_confirmation
from tenants.context import tenant_context
from tenants.services import add_staff_member
from tests.browser.conftest import horizontal_overflow
from tests.commerce import factories as f
from tests.console.conftest import paid_order, sized_shoe
from tulia.commerce.models import Order, OrderStatus, Variant
from tulia.commerce.orders import get_order

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "x-Morning-Pass-42"
UNKNOWN_MONEY = """{"TransactionType": "Pay Bill", "TransID": "TKM0RN1NG1",
 "TransTime": "20261125081500", "TransAmount": "%s", "BusinessShortCode": "600984",
 "BillRefNumber": "KIKC-TYPO", "MSISDN": "2547 ***** 678", "FirstName": "WANJIKU"}"""


def sign_in(page: Page, live_server: Any, username: str) -> None:
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_be_visible()


def _packed_order(tenant: Any) -> Order:
    order = paid_order(tenant)
    with tenant_context(tenant.id):
        Order.objects.filter(pk=order.pk).update(status=OrderStatus.PACKED)
    return order


def _unknown_money(tenant: Any, amount: str) -> None:
    """Money with a reference that matches no order, through the real C2B handler."""
    event = store_event(
        tenant.id, PaymentEvent.Kind.C2B_CONFIRMATION, UNKNOWN_MONEY % amount,
        reference="TKM0RN1NG1",
    )  # fmt: skip
    assert handle_c2b_confirmation(tenant.id, event.pk) == "unmatched"


@pytest.fixture
def morning(tenant: Any, stranger: Any) -> dict[str, Any]:
    add_staff_member(tenant.id, username="wanjiru", password=PASSWORD, role="owner")
    shipped = _packed_order(tenant)
    shoe = sized_shoe(tenant, "Jordan 1")
    unpaid = f.customer(tenant)
    with tenant_context(tenant.id) as tid:
        waiting = Order.objects.create(
            tenant_id=tid, customer=unpaid, reference="KIKC-7Y2P", subtotal=4500, total=4500
        )
    _unknown_money(tenant, "4500.00")
    return {"ship": shipped, "shoe": shoe, "unpaid": waiting}


def test_an_owners_morning(page: Page, live_server: Any, tenant: Any, morning: Any) -> None:
    sign_in(page, live_server, "wanjiru")
    expect(page.locator(".today h2")).to_have_text("Kicks Nairobi today")

    # Ship: the card → the order → note → one click.
    page.click("a.today-card:has-text('orders to pack and ship')")
    page.click(f"text={morning['ship'].reference}")
    page.fill(".order-lifecycle input[name=note]", "Rider Juma 0722")
    page.click("button:has-text('Mark shipped')")
    expect(page.locator(".messagelist")).to_contain_text("is now Shipped")
    shipped = get_order(tenant.id, morning["ship"].pk)
    assert (shipped.status, shipped.tracking_note) == ("shipped", "Rider Juma 0722")

    # A size's stock: Products → the shoe → size 42's stock → save.
    page.click("#nav-sidebar a:has-text('Products')")
    page.click("#result_list a:has-text('Jordan 1')")
    row = page.locator("tr.form-row:has(input[value='42'])")
    row.locator("input[name$='-stock']").fill("9")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_be_visible()
    with tenant_context(tenant.id):
        assert Variant.objects.get(item=morning["shoe"], attributes__size="42").stock == 9

    # Business hours: Shop settings → Monday 08:00-12:00, "Add a window", 14:00-18:00 → save.
    page.click("#nav-sidebar a:has-text('Shop settings')")
    page.check("input[name=mon_open]")
    monday = page.locator(".hours-windows[data-day=mon_hours]")
    monday.locator("input[name=mon_hours_opens]").fill("08:00")
    monday.locator("input[name=mon_hours_closes]").fill("12:00")
    monday.locator("button.hours-add").click()
    monday.locator("input[name=mon_hours_opens]").nth(1).fill("14:00")
    monday.locator("input[name=mon_hours_closes]").nth(1).fill("18:00")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_be_visible()
    tenant.refresh_from_db()
    windows = tenant.handoff_settings.business_hours.mon
    assert [(w.opens, w.closes) for w in windows] == [(time(8), time(12)), (time(14), time(18))]

    # A payment: Payments to check → the item → match the suggested order.
    page.click("#nav-sidebar a:has-text('Payments to check')")
    page.click("#result_list a:has-text('resolve')")
    expect(page.locator("table.suggestions")).to_contain_text("KIKC-7Y2P")
    page.click("button.match-order")
    expect(page.locator(".messagelist")).to_contain_text("Matched")
    assert get_order(tenant.id, morning["unpaid"].pk).status == "paid"


def test_a_swahili_owner(page: Page, live_server: Any, tenant: Any, morning: Any) -> None:
    sign_in(page, live_server, "wanjiru")
    page.click(".console-language button")
    expect(page.locator(".today h2")).to_have_text("Kicks Nairobi leo")
    expect(page.locator("#content-main")).to_contain_text("Mipangilio ya duka")
    page.click("a.today-card:has-text('oda za kufungasha')")
    page.click(f"text={morning['ship'].reference}")
    expect(page.locator(".order-lifecycle")).to_contain_text("Weka imetumwa")


@pytest.mark.parametrize(
    "path",
    [
        "/admin/",
        "/admin/commerce/order/",
        "/admin/commerce/catalogitem/",
        "/admin/payments/paymenttoreconcile/",
    ],
)
def test_no_sideways_scroll_at_390_px(
    phone_page: Page, live_server: Any, tenant: Any, morning: Any, path: str
) -> None:
    sign_in(phone_page, live_server, "wanjiru")
    phone_page.goto(live_server.url + path)
    assert horizontal_overflow(phone_page) == 0


def test_order_and_settings_pages_fit_390_px(
    phone_page: Page, live_server: Any, tenant: Any, morning: Any
) -> None:
    sign_in(phone_page, live_server, "wanjiru")
    phone_page.goto(f"{live_server.url}/admin/commerce/order/{morning['ship'].pk}/change/")
    assert horizontal_overflow(phone_page) == 0
    phone_page.goto(f"{live_server.url}/admin/tenants/tenant/{tenant.pk}/change/")
    assert horizontal_overflow(phone_page) == 0


def test_resolve_page_with_refund_form_fits_390_px(
    phone_page: Page, live_server: Any, tenant: Any, morning: Any
) -> None:
    """The owner's refund form (amount, reason, button) stays inside a phone's width."""
    sign_in(phone_page, live_server, "wanjiru")
    phone_page.goto(f"{live_server.url}/admin/payments/paymenttoreconcile/")
    phone_page.click("#result_list a:has-text('resolve')")
    expect(phone_page.locator("form.refund-money")).to_be_visible()
    expect(phone_page.locator("table.suggestions")).to_contain_text("KIKC-7Y2P")
    assert horizontal_overflow(phone_page) == 0


def test_the_screenshot_command_writes_each_page(
    live_server: Any, tenant: Any, morning: Any, tmp_path: Any
) -> None:
    """Also how the README's console screenshots are made: run this test with
    TULIA_CONSOLE_SCREENSHOTS=docs/screenshots (the morning's shop is the subject)."""
    from django.core.management import call_command

    out = Path(os.environ.get("TULIA_CONSOLE_SCREENSHOTS") or tmp_path)
    # Its own thread: the session's browser fixture already runs Playwright's sync
    # loop on this one, and a second may not start beside it.
    run = threading.Thread(
        target=call_command,
        args=("console_screenshots",),
        kwargs={"base_url": live_server.url, "username": "wanjiru", "password": PASSWORD,
                "out": str(out), "label": "console"},
    )  # fmt: skip
    run.start()
    run.join(timeout=300)
    for page in ("home-1366", "order-390", "settings-1366", "home-sw-390", "product-1366"):
        shot = out / f"console-{page}.png"
        assert shot.stat().st_size > 5_000, shot
