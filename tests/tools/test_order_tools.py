"""order_create, order_apply_coupon, order_get_status, offers_get_applicable."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tests.commerce import factories as f
from tools.contract import ToolError
from tools.runner import call_tool
from tulia.commerce.models import OfferRedemption, Order
from tulia.commerce.orders import mark_order_paid

pytestmark = pytest.mark.django_db


@pytest.fixture
def basket(tenant, stranger):
    shoes = f.category(tenant, "Sneakers")
    shoe = f.item(
        tenant,
        "Air Max 90",
        12000,
        cat=shoes,
        variants=[{"attributes": {"size": "42"}}, {"attributes": {"size": "43"}, "price": 12500}],
    )
    socks = f.item(tenant, "Crew Socks", 500, stock=50)
    return {"shoe": shoe, "socks": socks, "buyer": f.customer(tenant), "category": shoes}


def _create(tenant, basket, **extra):
    with tenant_context(tenant.id):
        variant = basket["shoe"].variants.order_by("id").last()
    lines = [
        {"item_id": basket["shoe"].pk, "variant_id": variant.pk, "quantity": 1},
        {"item_id": basket["socks"].pk, "quantity": 3},
    ]
    return call_tool(
        "order_create", f.payload(tenant, customer_id=basket["buyer"].pk, lines=lines, **extra)
    )


def _orders(tenant) -> int:
    with tenant_context(tenant.id):
        return Order.objects.count()


def test_order_create_prices_from_catalog(tenant, basket) -> None:
    out = _create(tenant, basket).unwrap()
    assert out.subtotal == Decimal("14000.00") == out.total  # 12500 + 3 x 500
    assert [line.unit_price for line in out.lines] == [Decimal("12500.00"), Decimal("500.00")]
    assert out.status == "draft"
    assert out.currency == "KES"
    assert out.amount_whole_kes == 14000


def test_caller_cannot_supply_a_price(tenant, basket) -> None:
    lines = [{"item_id": basket["socks"].pk, "quantity": 1, "unit_price": 1}]
    result = call_tool(
        "order_create", f.payload(tenant, customer_id=basket["buyer"].pk, lines=lines)
    )
    assert result.error_code == "invalid_input"
    assert _orders(tenant) == 0


def test_stranger_cannot_order_tenant_items(tenant, stranger, basket) -> None:
    theirs = f.customer(stranger)
    lines = [{"item_id": basket["socks"].pk, "quantity": 1}]
    result = call_tool("order_create", f.payload(stranger, customer_id=theirs.pk, lines=lines))
    assert result.error_code == "not_found"
    assert _orders(stranger) == _orders(tenant) == 0


def test_out_of_stock_is_a_structured_error(tenant, basket) -> None:
    lines = [{"item_id": basket["socks"].pk, "quantity": 51}]
    result = call_tool(
        "order_create", f.payload(tenant, customer_id=basket["buyer"].pk, lines=lines)
    )
    assert result.error == ToolError(
        code="out_of_stock", message=result.error.message if result.error else "", retryable=False
    )


def test_coupon_takes_whole_shillings_off(tenant, basket) -> None:
    f.offer(tenant, "KICKS10", value="10", min_spend=Decimal("5000"))
    order = _create(tenant, basket).unwrap()
    args = {"customer_id": basket["buyer"].pk, "order_id": order.order_id, "code": "kicks10"}
    out = call_tool("order_apply_coupon", f.payload(tenant, **args)).unwrap()
    assert (out.discount_total, out.total, out.coupon_code) == (
        Decimal("1400.00"),
        Decimal("12600.00"),
        "KICKS10",
    )


def test_category_coupon_only_discounts_that_category(tenant, basket) -> None:
    f.offer(tenant, "SOCKS", kind="fixed", value="5000", scope="item", item=basket["socks"])
    order = _create(tenant, basket).unwrap()
    args = {"customer_id": basket["buyer"].pk, "order_id": order.order_id, "code": "SOCKS"}
    out = call_tool("order_apply_coupon", f.payload(tenant, **args)).unwrap()
    assert out.discount_total == Decimal("1500.00")  # capped at the socks' 3 x 500


def test_coupon_limits_and_window(tenant, basket) -> None:
    f.offer(tenant, "ONCE", value="5", usage_limit_per_customer=1)
    f.offer(tenant, "OLD", value="5", ends_at=timezone.now() - timedelta(days=1))
    first = _create(tenant, basket, request_id="req-first").unwrap()
    second = _create(tenant, basket, request_id="req-second").unwrap()
    buyer = basket["buyer"].pk
    ok = call_tool(
        "order_apply_coupon",
        f.payload(tenant, customer_id=buyer, order_id=first.order_id, code="ONCE"),
    )
    assert ok.ok
    for code, order in (("ONCE", second), ("OLD", second), ("NOPE", second)):
        result = call_tool(
            "order_apply_coupon",
            f.payload(tenant, customer_id=buyer, order_id=order.order_id, code=code),
        )
        assert result.error_code == "coupon_rejected", code


def test_stranger_cannot_apply_coupons_to_tenant_orders(tenant, stranger, basket) -> None:
    f.offer(tenant, "KICKS10", value="10")
    f.offer(stranger, "KICKS10", value="90")
    order = _create(tenant, basket).unwrap()
    theirs = f.customer(stranger)
    args = {"customer_id": theirs.pk, "order_id": order.order_id, "code": "KICKS10"}
    assert call_tool("order_apply_coupon", f.payload(stranger, **args)).error_code == "not_found"
    for shop in (tenant, stranger):
        with tenant_context(shop.id):
            assert OfferRedemption.objects.count() == 0


def test_order_status_shows_payment(tenant, stranger, basket) -> None:
    order = _create(tenant, basket).unwrap()
    mark_order_paid(tenant.id, order.order_id, payment_reference="QK12ABC")
    by_ref = call_tool(
        "order_get_status",
        f.payload(tenant, customer_id=basket["buyer"].pk, reference=order.reference.lower()),
    ).unwrap()
    assert by_ref.paid
    assert by_ref.order.status == "paid"
    assert [h.to_status for h in by_ref.history] == ["draft", "paid"]


def test_order_status_is_private_to_the_customer_and_tenant(tenant, stranger, basket) -> None:
    order = _create(tenant, basket).unwrap()
    other = f.customer(tenant, "0799000111")
    theirs = f.customer(stranger)
    for shop, who in ((tenant, other), (stranger, theirs)):
        result = call_tool(
            "order_get_status", f.payload(shop, customer_id=who.pk, order_id=order.order_id)
        )
        assert result.error_code == "not_found"


def test_order_status_needs_exactly_one_key(tenant, basket) -> None:
    result = call_tool("order_get_status", f.payload(tenant, customer_id=basket["buyer"].pk))
    assert result.error_code == "invalid_input"


def test_offers_listed_with_discount_for_an_order(tenant, stranger, basket) -> None:
    f.offer(tenant, "KICKS10", value="10", name="Ten percent")
    f.offer(tenant, "BIG", kind="fixed", value="1000", min_spend=Decimal("50000"), name="Big")
    f.offer(tenant, "SECRET", value="50", advertised=False)
    f.offer(stranger, "MBOGA5", value="5")
    order = _create(tenant, basket).unwrap()
    out = call_tool(
        "offers_get_applicable",
        f.payload(tenant, customer_id=basket["buyer"].pk, order_id=order.order_id),
    ).unwrap()
    found = {o.code: (o.applicable, o.discount) for o in out.offers}
    assert found == {"KICKS10": (True, Decimal("1400.00")), "BIG": (False, None)}


def test_stranger_cannot_price_offers_on_tenant_order(tenant, stranger, basket) -> None:
    order = _create(tenant, basket).unwrap()
    theirs = f.customer(stranger)
    result = call_tool(
        "offers_get_applicable",
        f.payload(stranger, customer_id=theirs.pk, order_id=order.order_id),
    )
    assert result.error_code == "not_found"


def test_coupon_cannot_change_an_order_awaiting_payment(tenant, basket) -> None:
    from tests.commerce.factories import mark_payment_pending

    f.offer(tenant, "KICKS10", value="10")
    order = _create(tenant, basket).unwrap()
    mark_payment_pending(tenant.id, order.order_id)
    args = {"customer_id": basket["buyer"].pk, "order_id": order.order_id, "code": "KICKS10"}
    result = call_tool("order_apply_coupon", f.payload(tenant, **args))
    assert result.error_code == "invalid_order_state"
