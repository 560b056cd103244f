"""catalog_get_item, and the refusal of every tool to act for another tenant."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tenants.context import tenant_context
from tests.commerce import factories as f
from tools.models import ToolCall
from tools.registry import TOOL_MODULES
from tools.runner import call_tool
from tulia.commerce.models import CatalogItem

pytestmark = pytest.mark.django_db


def test_get_item_gives_variants_prices_and_stock(tenant, stranger) -> None:
    shoe = f.item(
        tenant,
        "Jordan 1 Mid",
        16500,
        cat=f.category(tenant, "Basketball"),
        variants=[
            {"attributes": {"size": "42"}, "stock": 2},
            {"attributes": {"size": "44"}, "stock": 0, "price": 17000},
        ],
    )
    out = call_tool("catalog_get_item", f.payload(tenant, item_id=shoe.pk)).unwrap()
    assert (out.name, out.category, out.price, out.stock) == (
        "Jordan 1 Mid",
        "Basketball",
        Decimal("16500.00"),
        2,
    )
    assert [(v.attributes["size"], v.price, v.in_stock) for v in out.variants] == [
        ("42", Decimal("16500.00"), True),
        ("44", Decimal("17000.00"), False),
    ]


def test_inactive_item_is_not_found(tenant) -> None:
    gone = f.item(tenant, "Old Model", 100, is_active=False)
    assert call_tool("catalog_get_item", f.payload(tenant, item_id=gone.pk)).error_code == (
        "not_found"
    )


def test_stranger_gets_not_found_for_my_item(tenant, stranger) -> None:
    mine = f.item(tenant, "Air Max 97", 18500)
    result = call_tool("catalog_get_item", f.payload(stranger, item_id=mine.pk))
    assert result.error_code == "not_found"


MINIMAL_ARGS: dict[str, dict[str, Any]] = {
    "customer_get_or_create": {"phone": "0712345678"},
    "customer_update_preferences": {"customer_id": 1, "language_preference": "sw"},
    "catalog_search": {"query": "raba"},
    "catalog_get_item": {"item_id": 1},
    "order_create": {"customer_id": 1, "lines": [{"item_id": 1, "quantity": 1}]},
    "offers_get_applicable": {"customer_id": 1},
    "order_apply_coupon": {"customer_id": 1, "order_id": 1, "code": "KICKS10"},
    "order_get_status": {"customer_id": 1, "order_id": 1},
    "tenant_get_context": {},
    "order_list_recent": {"customer_id": 1},
    "order_cancel": {"customer_id": 1, "reference": "KX-1234"},
    "return_request_create": {"customer_id": 1, "reference": "KX-1234"},
    "fulfilment_get_options": {},
    "order_set_fulfilment": {"customer_id": 1, "order_id": 1, "method": "pickup"},
    "stock_request_create": {"customer_id": 1, "item_id": 1},
}


def test_minimal_args_cover_every_registered_commerce_tool() -> None:
    assert set(MINIMAL_ARGS) <= set(TOOL_MODULES)


@pytest.mark.parametrize("name", sorted(MINIMAL_ARGS))
def test_every_tool_refuses_another_tenant_and_writes_nothing_there(tenant, stranger, name) -> None:
    with tenant_context(tenant.id):
        result = call_tool(name, f.payload(stranger, **MINIMAL_ARGS[name]))
    assert result.error_code == "tenant_mismatch"
    with tenant_context(stranger.id):
        assert ToolCall.objects.count() == 0
        assert CatalogItem.objects.count() == 0
    from tenants.models import Customer

    with tenant_context(stranger.id):
        assert Customer.objects.count() == 0
