"""The LangChain view of the tools: the model only sees business arguments."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tenants.context import tenant_context
from tests.commerce import factories as f
from tools.contract import IDENTITY_FIELDS
from tools.langchain_adapter import RunContext, langchain_tools, model_visible_schema
from tools.models import ToolCall
from tools.registry import all_tools

pytestmark = pytest.mark.django_db


def test_no_tool_shows_identity_to_the_model() -> None:
    for tool in all_tools():
        visible = set(model_visible_schema(tool).model_json_schema().get("properties", {}))
        assert not visible & IDENTITY_FIELDS, tool.name


def test_model_cannot_pass_a_tenant_id() -> None:
    tool = next(t for t in all_tools() if t.name == "catalog_search")
    with pytest.raises(ValidationError):
        model_visible_schema(tool).model_validate({"query": "raba", "tenant_id": "x"})


def test_identity_comes_from_the_run_context(tenant, stranger) -> None:
    buyer = f.customer(tenant)
    context = RunContext(tenant.id, "wamid.9", conversation_id=3, customer_id=buyer.pk)
    tools = {tool.name: tool for tool in langchain_tools(context)}
    result = tools["customer_update_preferences"].invoke({"language_preference": "sw"})
    assert result["ok"], result
    assert result["output"]["customer_id"] == buyer.pk
    with tenant_context(tenant.id):
        call = ToolCall.objects.get()
    assert (call.request_id, call.conversation_id) == ("wamid.9", 3)


def test_stranger_context_cannot_reach_tenant_data(tenant, stranger) -> None:
    mine = f.item(tenant, "Air Max 97", 12000)
    context = RunContext(stranger.id, "wamid.10")
    (get_item,) = langchain_tools(context, ["catalog_get_item"])
    result = get_item.invoke({"item_id": mine.pk})
    assert result["error"]["code"] == "not_found"


def test_nested_arguments_survive_the_adapter(tenant, stranger) -> None:
    shoe = f.item(tenant, "Vans Old Skool", 7500)
    buyer = f.customer(tenant)
    (order_create,) = langchain_tools(
        RunContext(tenant.id, "wamid.11", customer_id=buyer.pk), ["order_create"]
    )
    result = order_create.invoke({"lines": [{"item_id": shoe.pk, "quantity": 2}]})
    assert result["ok"], result
    assert result["output"]["total"] == "15000.00"
