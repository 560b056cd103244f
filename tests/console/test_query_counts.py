"""Query counts per console page, pinned so a change that adds a query per row, or a
second count in the header, fails here rather than in a shop with 10,000 orders.

Each page is read with three rows and again with six: the count must not grow with the
rows (no query per row), and must stay at or under its pin. The counts include the
tenant context's own statements (savepoint and set_config around each scoped block).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from payments.inbox import store_event
from payments.models import PaymentEvent
from payments.mpesa.handlers import handle_c2b_confirmation
from tests.console.conftest import login, paid_order, sized_shoe

pytestmark = pytest.mark.django_db
UNMATCHED = """{"TransactionType": "Pay Bill", "TransID": "TQC%05d", "TransTime": "20261125081500",
 "TransAmount": "120.00", "BusinessShortCode": "600984", "BillRefNumber": "NOPE-%d",
 "MSISDN": "2547 ***** 678", "FirstName": "AMINA"}"""
# Page → most queries it may take (measured, then pinned).
PINS = {
    "home": 34,
    "order list": 26,
    "order page": 28,
    "product list": 26,
    "product search": 26,
    "product page": 27,
    "reconciliation list": 26,
    "shop settings": 24,
}


def _rows(tenant, n: int, first: int = 0) -> dict[str, str]:
    orders = [paid_order(tenant) for _ in range(n)]
    shoes = [sized_shoe(tenant, f"Runner {i}") for i in range(first, first + n)]
    for i in range(first, first + n):
        event = store_event(
            tenant.id, PaymentEvent.Kind.C2B_CONFIRMATION, UNMATCHED % (i, i), reference=f"TQC{i}"
        )
        handle_c2b_confirmation(tenant.id, event.pk)
    return {
        "home": "/admin/",
        "order list": "/admin/commerce/order/",
        "order page": f"/admin/commerce/order/{orders[0].pk}/change/",
        "product list": "/admin/commerce/catalogitem/",
        "product search": "/admin/commerce/catalogitem/?q=runner",
        "product page": f"/admin/commerce/catalogitem/{shoes[0].pk}/change/",
        "reconciliation list": "/admin/payments/paymenttoreconcile/",
        "shop settings": f"/admin/tenants/tenant/{tenant.pk}/change/",
    }


def _count(client: Client, url: str) -> int:
    client.get(url)  # warm: the session's first read of per-user things
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


def _counts(client: Client, urls: dict[str, str]) -> dict[str, int]:
    return {page: _count(client, url) for page, url in urls.items()}


def test_each_page_stays_within_its_pin_and_does_not_grow_with_rows(tenant, stranger) -> None:
    client = login(tenant, "owner_qc")
    few = _counts(client, _rows(tenant, 3))
    many = _counts(client, _rows(tenant, 3, first=3))  # now six of each
    assert {page: many[page] <= few[page] for page in PINS} == dict.fromkeys(PINS, True)
    assert {page: few[page] <= PINS[page] for page in PINS} == dict.fromkeys(PINS, True), few


def test_an_agents_pages_stay_within_the_owners_pins(tenant, stranger) -> None:
    urls = _rows(tenant, 2)
    client: Client = login(tenant, "agent_qc", "agent")
    agent_pages = ("order list", "order page")
    counts = {page: _count(client, urls[page]) for page in agent_pages}
    assert {page: counts[page] <= PINS[page] for page in counts} == dict.fromkeys(counts, True)
