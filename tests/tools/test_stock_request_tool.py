"""stock_request_create: one open back-in-stock wish per customer and item, audited,
and nothing recorded for an item that is not the shop's."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.commerce import factories as f
from tools.models import ToolCall
from tools.runner import call_tool
from tulia.campaigns.models import StockRequest

pytestmark = pytest.mark.django_db


def _requests(tenant: Tenant) -> list[tuple[int, int]]:
    with tenant_context(tenant.id):
        return list(StockRequest.objects.values_list("customer_id", "item_id"))


def test_asked_twice_is_one_open_request_and_two_audit_rows(tenant: Tenant) -> None:
    asker = f.customer(tenant)
    item = f.item(tenant, "Air Runner", 4500, stock=0)
    ask = f.payload(tenant, customer_id=asker.pk, item_id=item.pk)
    assert call_tool("stock_request_create", ask).unwrap().recorded
    assert not call_tool("stock_request_create", ask).unwrap().recorded
    assert _requests(tenant) == [(asker.pk, item.pk)]
    with tenant_context(tenant.id):
        assert ToolCall.objects.filter(tool="stock_request_create").count() == 2


def test_another_shops_item_is_not_recorded_anywhere(tenant: Tenant, stranger: Tenant) -> None:
    asker = f.customer(tenant)
    theirs = f.item(stranger, "Sukuma", 20, stock=0)
    ask = f.payload(tenant, customer_id=asker.pk, item_id=theirs.pk)
    assert not call_tool("stock_request_create", ask).unwrap().recorded
    assert _requests(tenant) == _requests(stranger) == []


def test_an_untyped_item_id_is_refused(tenant: Tenant) -> None:
    asker = f.customer(tenant)
    ask = f.payload(tenant, customer_id=asker.pk, item_id="12")
    assert call_tool("stock_request_create", ask).error_code == "invalid_input"
