"""The shared contract: strict schemas, tenant refusal, structured errors, audit rows."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tests.commerce import factories as f
from tools.models import ToolCall
from tools.registry import TOOL_MODULES, all_tools, get_tool
from tools.runner import call_tool

pytestmark = pytest.mark.django_db

NINE = {
    "tenant_get_context",
    "customer_get_or_create",
    "customer_update_preferences",
    "catalog_search",
    "catalog_get_item",
    "order_create",
    "offers_get_applicable",
    "order_apply_coupon",
    "order_get_status",
}


def _calls(tenant) -> list[ToolCall]:
    with tenant_context(tenant.id):
        return list(ToolCall.objects.order_by("id"))


SPEC_TOOLS = NINE | {
    "payment_get_methods",
    "payment_get_c2b_instructions",
    "payment_initiate_stk_push",
    "payment_create_pesapal_checkout",
    "kb_retrieve",
    "handoff_create_ticket",
    # wave 2 (SPEC §4)
    "order_list_recent",
    "order_cancel",
    "return_request_create",
    "fulfilment_get_options",
    "order_set_fulfilment",
    # the back-in-stock wish the sale records (issue 26)
    "stock_request_create",
}


def test_registry_lists_exactly_the_spec_tools_under_their_own_names() -> None:
    assert set(TOOL_MODULES) == SPEC_TOOLS
    for tool in all_tools():
        assert tool.name in TOOL_MODULES


@pytest.mark.parametrize("name", sorted(NINE))
def test_every_input_schema_requires_identity(name: str) -> None:
    schema = get_tool(name).input_model.model_json_schema()
    assert {"tenant_id", "request_id"} <= set(schema["required"])
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize("name", sorted(NINE))
@pytest.mark.parametrize(
    "broken",
    [
        {"tenant_id": None},
        {"tenant_id": "not-a-uuid"},
        {"request_id": 12},
        {"conversation_id": "7"},
        {"surprise": "extra field"},
    ],
)
def test_bad_identity_or_extra_fields_are_refused(tenant, stranger, name, broken) -> None:
    result = call_tool(name, {**f.payload(tenant), **broken})
    assert not result.ok
    assert result.error is not None
    assert result.error_code == "invalid_input"


@pytest.mark.parametrize("name", sorted(NINE))
def test_missing_request_id_is_refused(tenant, stranger, name) -> None:
    payload = f.payload(tenant)
    del payload["request_id"]
    assert call_tool(name, payload).error_code == "invalid_input"


def test_wrong_business_types_are_refused(tenant, stranger) -> None:
    cases: list[tuple[str, dict[str, object]]] = [
        ("catalog_get_item", {"item_id": "5"}),
        ("catalog_search", {"query": 42}),
        ("catalog_search", {"in_stock": "yes"}),
        ("order_create", {"customer_id": 1, "lines": [{"item_id": 1, "quantity": "2"}]}),
    ]
    for name, bad in cases:
        assert call_tool(name, f.payload(tenant, **bad)).error_code == "invalid_input", name


def test_another_tenants_id_is_refused_inside_a_context(tenant, stranger) -> None:
    with tenant_context(tenant.id):
        result = call_tool("tenant_get_context", f.payload(stranger))
    assert result.error_code == "tenant_mismatch"
    assert [c.outcome for c in _calls(tenant)] == ["refused"]
    assert _calls(stranger) == []


def test_success_is_recorded_with_identity_and_duration(tenant, stranger) -> None:
    result = call_tool("tenant_get_context", f.payload(tenant, request_id="wamid.1"))
    assert result.ok
    assert result.unwrap().name == tenant.name
    (call,) = _calls(tenant)
    assert (call.tool, call.outcome, call.request_id, call.conversation_id) == (
        "tenant_get_context",
        "ok",
        "wamid.1",
        7,
    )
    assert call.outputs["output"]["name"] == tenant.name
    assert call.duration_ms >= 0
    assert _calls(stranger) == []


def test_failure_is_recorded_not_raised(tenant, stranger) -> None:
    result = call_tool("catalog_get_item", f.payload(tenant, item_id=999_999))
    assert result.error is not None
    assert not result.error.retryable
    assert result.error_code == "not_found"
    (call,) = _calls(tenant)
    assert (call.outcome, call.error_code) == ("error", "not_found")


def test_failed_tool_leaves_no_partial_writes(tenant, stranger) -> None:
    buyer = f.customer(tenant)
    good = f.item(tenant, "Air Force 1", 8000)
    lines = [{"item_id": good.pk, "quantity": 1}, {"item_id": 999_999, "quantity": 1}]
    result = call_tool("order_create", f.payload(tenant, customer_id=buyer.pk, lines=lines))
    assert result.error_code == "not_found"
    from tulia.commerce.models import Order

    with tenant_context(tenant.id):
        assert Order.objects.count() == 0
    assert _calls(tenant)[-1].outcome == "error"


def test_unknown_tool_is_an_error_not_an_exception(tenant) -> None:
    assert call_tool("drop_tables", f.payload(tenant)).error_code == "unknown_tool"


def test_unknown_tenant_is_not_found(db) -> None:
    result = call_tool("tenant_get_context", f.payload(type("T", (), {"id": "0" * 32})()))
    assert result.error_code == "not_found"
