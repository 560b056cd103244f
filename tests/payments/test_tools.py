"""The four payment tools through the shared runner (validation, tenant check, audit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.payments.conftest import mpesa_fixture
from tools import registry
from tools.runner import call_tool
from tulia.commerce.orders import mark_order_paid

pytestmark = pytest.mark.django_db
PAYMENT_TOOLS = (
    "payment_get_methods",
    "payment_get_c2b_instructions",
    "payment_initiate_stk_push",
    "payment_create_pesapal_checkout",
)


@pytest.fixture(autouse=True)
def registered(monkeypatch) -> Iterator[None]:
    """Register the tools as the lead will in tools/registry.py (until that line lands)."""
    for name in PAYMENT_TOOLS:
        monkeypatch.setitem(registry.TOOL_MODULES, name, f"payments.tools.{name}")
    registry.get_tool.cache_clear()
    yield
    registry.get_tool.cache_clear()


def call(name: str, tenant, **fields: Any):
    payload = {"tenant_id": str(tenant.id), "request_id": "req-pay", **fields}
    return call_tool(name, payload)


def test_methods_are_the_enabled_and_configured_ones(shop, stranger) -> None:
    result = call("payment_get_methods", shop)
    assert result.ok
    assert [m.code for m in result.output.methods] == ["mpesa_stk", "mpesa_c2b", "pesapal_card"]
    assert call("payment_get_methods", stranger).output.methods == []


def test_c2b_instructions_for_the_customers_own_order(shop, make_order) -> None:
    order = make_order(shop, 990)
    result = call(
        "payment_get_c2b_instructions", shop, customer_id=order.customer_id, order_id=order.pk
    )
    assert result.ok
    assert (result.output.business_number, result.output.account_reference) == (
        "174379",
        order.reference,
    )
    assert result.output.amount_kes == 990


def test_another_customers_or_tenants_order_is_not_found(shop, other_shop, make_order):
    mine = make_order(shop, 990)
    someone_else = make_order(shop, 500, phone="0722000000")
    theirs = make_order(other_shop, 700)
    for tenant, order in ((shop, someone_else), (other_shop, mine), (shop, theirs)):
        result = call(
            "payment_get_c2b_instructions", tenant, customer_id=mine.customer_id, order_id=order.pk
        )
        assert (result.ok, result.error.code) == (False, "not_found")


def test_stk_push_refuses_an_amount_the_customer_did_not_confirm(shop, daraja, make_order):
    order = make_order(shop, 1500)
    result = call(
        "payment_initiate_stk_push",
        shop,
        customer_id=order.customer_id,
        order_id=order.pk,
        confirmed_amount_kes=1400,
    )
    assert (result.ok, result.error.code) == (False, "amount_not_confirmed")
    assert daraja.pushes == {}


def test_stk_push_refuses_a_paid_order(shop, daraja, make_order) -> None:
    order = make_order(shop, 1500)
    mark_order_paid(shop.id, order.pk, payment_reference="CASH-1")
    result = call(
        "payment_initiate_stk_push",
        shop,
        customer_id=order.customer_id,
        order_id=order.pk,
        confirmed_amount_kes=1500,
    )
    assert (result.ok, result.error.code) == (False, "order_not_payable")
    assert daraja.pushes == {}


def test_stk_push_is_idempotent_per_order_and_attempt(
    shop, daraja, make_order, post_callback
) -> None:
    for _ in range(3):
        daraja.script(deliver=False)
    order = make_order(shop, 1500)
    fields = {"customer_id": order.customer_id, "order_id": order.pk, "confirmed_amount_kes": 1500}
    first = call("payment_initiate_stk_push", shop, **fields)
    again = call("payment_initiate_stk_push", shop, **fields)
    assert first.ok
    assert again.ok
    assert first.output.payment_id == again.output.payment_id
    assert first.output.status == "pending"
    assert first.output.checkout_request_id.startswith("ws_CO_")
    too_soon = call("payment_initiate_stk_push", shop, attempt=2, **fields)
    assert (too_soon.ok, too_soon.error.code, too_soon.error.retryable) == (
        False,
        "payment_in_progress",
        True,
    )
    cancelled = mpesa_fixture("stk_callback_cancelled_1032.json", first.output.checkout_request_id)
    post_callback(shop, "stk_callback", cancelled)
    retry = call("payment_initiate_stk_push", shop, attempt=2, **fields)
    assert retry.ok
    assert retry.output.payment_id != first.output.payment_id
    assert len(daraja.pushes) == 2


def test_method_the_shop_did_not_enable_is_refused(tenant, daraja, pesapal, make_order):
    from tenants.services import update_tenant
    from tests.payments.conftest import equip

    equip(tenant, daraja.base_url, pesapal.base_url)
    update_tenant(tenant, payment_methods=["mpesa_stk"])
    order = make_order(tenant, 2500)
    result = call(
        "payment_create_pesapal_checkout",
        tenant,
        customer_id=order.customer_id,
        order_id=order.pk,
        confirmed_amount_kes=2500,
    )
    assert (result.ok, result.error.code) == (False, "method_not_enabled")
    assert pesapal.checkouts == {}


def test_provider_refusal_is_a_structured_error(shop, daraja, make_order) -> None:
    order = make_order(shop, 1500, phone="+442079460000")  # not an M-Pesa number
    result = call(
        "payment_initiate_stk_push",
        shop,
        customer_id=order.customer_id,
        order_id=order.pk,
        confirmed_amount_kes=1500,
    )
    assert (result.ok, result.error.code) == (False, "invalid_phone")


def test_pesapal_checkout_returns_the_link(shop, pesapal, make_order) -> None:
    order = make_order(shop, 2500)
    result = call(
        "payment_create_pesapal_checkout",
        shop,
        customer_id=order.customer_id,
        order_id=order.pk,
        confirmed_amount_kes=2500,
    )
    assert result.ok
    assert result.output.checkout_url.startswith(pesapal.base_url)


def test_tool_refuses_a_tenant_other_than_the_current_one(shop, other_shop) -> None:
    from tenants.context import tenant_context

    with tenant_context(shop.id):
        result = call("payment_get_methods", other_shop)
    assert (result.ok, result.error.code) == (False, "tenant_mismatch")
