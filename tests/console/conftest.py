"""Builders for the shop console tests: signed-in staff and orders at a given step."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.test import Client

from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import add_staff_member
from tests.commerce import factories as f
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import Order
from tulia.commerce.orders import mark_order_paid

PASSWORD = "x-Console-Pass-42"
_shoes = itertools.count(1)


def login(tenant: Tenant, username: str, role: str = "owner") -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def sized_shoe(tenant: Tenant, name: str = "Air Max 90") -> Any:
    return f.item(
        tenant,
        name,
        9500,
        stock=0,
        image_url="https://img.example.com/am90.jpg",
        variants=[
            {"attributes": {"size": "41"}, "stock": 3},
            {"attributes": {"size": "42"}, "stock": 2, "price": 9800},
        ],
    )


def paid_order(tenant: Tenant, *, size_index: int = 1, quantity: int = 1) -> Order:
    shoe = sized_shoe(tenant, f"Shoe {next(_shoes)}")
    with tenant_context(tenant.id):
        variant = list(shoe.variants.order_by("sku"))[size_index]
    line = LineRequest(shoe.pk, quantity, variant_id=variant.pk)
    order = create_order(tenant.id, f.customer(tenant).pk, [line])
    return mark_order_paid(tenant.id, order.pk, payment_reference="QK12ABC")


@pytest.fixture
def owner(tenant: Tenant, stranger: Tenant) -> Client:
    return login(tenant, "owner_c")
