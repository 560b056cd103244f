"""The wave-2 order tools: recent orders, return requests, customer cancellation."""

from __future__ import annotations

from typing import Any

import pytest

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.commerce import factories as f
from tests.handoff.conftest import make_conversation, make_order
from tools.runner import call_tool
from tulia.commerce.models import Order, OrderStatus
from tulia.returns.models import ReturnRequest

pytestmark = pytest.mark.django_db


def _mine(tenant: Tenant, conversation: Any, **fields: Any) -> dict[str, Any]:
    mine = {"conversation_id": conversation.pk, "customer_id": conversation.customer_id}
    return f.payload(tenant, **{**mine, **fields})


def test_same_return_asked_twice_is_one_request(tenant: Tenant, stranger: Tenant) -> None:
    conversation = make_conversation(tenant)
    make_order(tenant, conversation, "KX-2001", delivered_days_ago=2)
    ask = _mine(tenant, conversation, reference="KX-2001", reason_text="too big")
    first = call_tool("return_request_create", ask).unwrap()
    again = call_tool("return_request_create", {**ask, "request_id": "req-2"}).unwrap()
    assert (first.created, again.created) == (True, False)
    assert (again.return_request_id, again.ticket_id) == (first.return_request_id, first.ticket_id)
    assert first.verdict.reason == "approved"
    with tenant_context(tenant.id) as tid:
        assert ReturnRequest.objects.filter(tenant_id=tid).count() == 1


def test_return_on_someone_elses_conversation_is_not_found(tenant: Tenant) -> None:
    mine, theirs = make_conversation(tenant), make_conversation(tenant)
    make_order(tenant, mine, "KX-2002")
    ask = _mine(tenant, mine, reference="KX-2002", conversation_id=theirs.pk)
    assert call_tool("return_request_create", ask).error_code == "not_found"


def test_recent_lists_only_my_delivered_orders(tenant: Tenant) -> None:
    mine, theirs = make_conversation(tenant), make_conversation(tenant)
    make_order(tenant, mine, "KX-2003")
    make_order(tenant, mine, "KX-2004", delivered_days_ago=None)
    make_order(tenant, theirs, "KX-2005")
    out = call_tool("order_list_recent", _mine(tenant, mine)).unwrap()
    assert [o.reference for o in out.orders] == ["KX-2003"]
    opened = call_tool("order_list_recent", _mine(tenant, mine, which="open")).unwrap()
    assert [o.reference for o in opened.orders] == ["KX-2004"]


def test_cancel_refuses_a_delivered_order_and_changes_nothing(tenant: Tenant) -> None:
    conversation = make_conversation(tenant)
    make_order(tenant, conversation, "KX-2006")
    result = call_tool("order_cancel", _mine(tenant, conversation, reference="KX-2006"))
    assert result.error_code == "order_not_cancellable"
    with tenant_context(tenant.id) as tid:
        assert Order.objects.get(tenant_id=tid, reference="KX-2006").status == "delivered"


def test_cancel_of_another_customers_order_is_not_found(tenant: Tenant) -> None:
    mine, theirs = make_conversation(tenant), make_conversation(tenant)
    make_order(tenant, theirs, "KX-2007", delivered_days_ago=None)
    result = call_tool("order_cancel", _mine(tenant, mine, reference="KX-2007"))
    assert result.error_code == "not_found"
    with tenant_context(tenant.id) as tid:
        assert Order.objects.get(tenant_id=tid, reference="KX-2007").status == OrderStatus.PAID
