"""order_create is idempotent per request id: a retried turn gets the same order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection

from tenants.context import tenant_context
from tests.commerce import factories as f
from tools.runner import call_tool
from tulia.commerce.models import Order


@pytest.fixture
def shoe(tenant: Any) -> Any:
    return f.item(tenant, "Air Runner Black", 4500, stock=10)


def _create(tenant: Any, buyer: Any, shoe: Any, request_id: str, quantity: int = 1) -> Any:
    lines = [{"item_id": shoe.pk, "quantity": quantity}]
    payload = f.payload(tenant, customer_id=buyer.pk, lines=lines, request_id=request_id)
    return call_tool("order_create", payload)


def _orders(tenant: Any) -> int:
    with tenant_context(tenant.id):
        return Order.objects.count()


@pytest.mark.django_db
def test_the_same_request_twice_makes_one_order(tenant: Any, shoe: Any) -> None:
    buyer = f.customer(tenant)
    first = _create(tenant, buyer, shoe, "req-retry").unwrap()
    again = _create(tenant, buyer, shoe, "req-retry").unwrap()
    assert again.order_id == first.order_id
    assert again.reference == first.reference
    assert _orders(tenant) == 1


@pytest.mark.django_db
def test_another_request_makes_another_order(tenant: Any, shoe: Any) -> None:
    buyer = f.customer(tenant)
    first = _create(tenant, buyer, shoe, "req-one").unwrap()
    second = _create(tenant, buyer, shoe, "req-two").unwrap()
    assert second.order_id != first.order_id
    assert _orders(tenant) == 2


@pytest.mark.django_db
def test_a_failed_first_attempt_does_not_block_the_retry(tenant: Any, shoe: Any) -> None:
    buyer = f.customer(tenant)
    assert _create(tenant, buyer, shoe, "req-flaky", quantity=11).error_code == "out_of_stock"
    assert _create(tenant, buyer, shoe, "req-flaky").ok
    assert _orders(tenant) == 1


@pytest.mark.django_db
def test_another_customer_never_gets_the_order(tenant: Any, shoe: Any) -> None:
    first = _create(tenant, f.customer(tenant), shoe, "req-shared").unwrap()
    other = _create(tenant, f.customer(tenant, phone="0799000111"), shoe, "req-shared").unwrap()
    assert other.order_id != first.order_id


@pytest.mark.django_db
def test_another_tenant_with_the_same_request_id_is_untouched(
    tenant: Any, stranger: Any, shoe: Any
) -> None:
    _create(tenant, f.customer(tenant), shoe, "req-both").unwrap()
    theirs = f.item(stranger, "Sukuma", 30, stock=10)
    made = _create(stranger, f.customer(stranger), theirs, "req-both").unwrap()
    with tenant_context(stranger.id):
        assert Order.objects.get().pk == made.order_id
    assert _orders(tenant) == 1


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_retries_make_one_order(tenant: Any, shoe: Any) -> None:
    buyer = f.customer(tenant)

    def attempt(_: int) -> int:
        try:
            return int(_create(tenant, buyer, shoe, "req-race").unwrap().order_id)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        made = set(pool.map(attempt, range(2)))
    assert len(made) == 1
    assert _orders(tenant) == 1
