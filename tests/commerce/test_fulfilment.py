"""Delivery or pickup on an order: the zone's fee in the total, free delivery from the
shop's threshold (never for a courier zone), only before payment, only one's own
order; staff see it on the order page; the demo shops' settings match their documents."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.demo import seed_tenants
from tenants.errors import NotFound
from tenants.models import Tenant
from tenants.services import add_staff_member
from tests.commerce import factories as f
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.demo_fulfilment import seed_fulfilment
from tulia.commerce.errors import OrderStateError, UnknownDeliveryArea
from tulia.commerce.fulfilment import options_for, set_fulfilment, zone_for
from tulia.commerce.models import FulfilmentSettings, Order
from tulia.commerce.offers import apply_coupon
from tulia.commerce.orders import mark_order_paid
from tulia.returns.demo import seed_return_policies
from tulia.returns.models import ReturnPolicy

pytestmark = pytest.mark.django_db


def _settings(tenant: Tenant) -> None:
    with tenant_context(tenant.id) as tid:
        FulfilmentSettings.objects.create(
            tenant_id=tid,
            delivery_zones=[
                {"name": "Westlands", "fee": 250, "areas": ["kilimani"]},
                {"name": "Mombasa", "fee": 600, "courier": True},
            ],
            free_delivery_from=Decimal(5000),
            pickup_location="Moi Avenue shop",
        )


def _order(tenant: Tenant, price: int, phone: str = "0712345678") -> Order:
    item = f.item(tenant, f"Shoe {price}", price)
    customer = f.customer(tenant, phone)
    return create_order(tenant.id, customer.pk, [LineRequest(item.pk, 1)])


def test_delivery_fee_joins_the_total(tenant) -> None:
    _settings(tenant)
    order = _order(tenant, 3000)
    done = set_fulfilment(tenant.id, order.pk, order.customer_id, "delivery", "Kilimani, Rd 4")
    assert (done.delivery_area, done.delivery_fee, done.total) == (
        "Westlands",
        Decimal(250),
        Decimal(3250),
    )
    assert done.delivery_address == "Kilimani, Rd 4"


def test_free_from_the_threshold_but_never_for_a_courier(tenant) -> None:
    _settings(tenant)
    big = _order(tenant, 6000)
    assert set_fulfilment(tenant.id, big.pk, big.customer_id, "delivery", "kilimani").total == (
        Decimal(6000)
    )
    parcel = set_fulfilment(tenant.id, big.pk, big.customer_id, "delivery", "Mombasa")
    assert (parcel.delivery_fee, parcel.total) == (Decimal(600), Decimal(6600))
    picked = set_fulfilment(tenant.id, big.pk, big.customer_id, "pickup")
    assert (picked.fulfilment, picked.delivery_fee, picked.total) == (
        "pickup",
        Decimal(0),
        Decimal(6000),
    )


def test_a_coupon_after_the_area_judges_free_delivery_on_the_discounted_subtotal(
    tenant,
) -> None:
    _settings(tenant)
    f.offer(tenant, "TENOFF", value="10")
    order = _order(tenant, 5200)
    free = set_fulfilment(tenant.id, order.pk, order.customer_id, "delivery", "kilimani")
    assert (free.delivery_fee, free.total) == (Decimal(0), Decimal(5200))
    # 10% off leaves 4,680: under the 5,000 threshold, so the zone's fee comes back.
    coupon = apply_coupon(tenant.id, order.pk, "TENOFF", order.customer_id)
    assert (coupon.discount_total, coupon.delivery_fee, coupon.total) == (
        Decimal(520),
        Decimal(250),
        Decimal(4930),
    )
    with tenant_context(tenant.id):
        stored = Order.objects.get(pk=order.pk)
    assert (stored.delivery_fee, stored.total) == (Decimal(250), Decimal(4930))


def test_a_coupon_that_keeps_the_order_over_the_threshold_keeps_it_free(tenant) -> None:
    _settings(tenant)
    f.offer(tenant, "TENOFF", value="10")
    order = _order(tenant, 8000)
    set_fulfilment(tenant.id, order.pk, order.customer_id, "delivery", "kilimani")
    done = apply_coupon(tenant.id, order.pk, "TENOFF", order.customer_id)
    assert (done.delivery_fee, done.total) == (Decimal(0), Decimal(7200))


def test_unknown_area_paid_order_and_another_customer_are_refused(tenant) -> None:
    _settings(tenant)
    order = _order(tenant, 3000)
    with pytest.raises(UnknownDeliveryArea):
        set_fulfilment(tenant.id, order.pk, order.customer_id, "delivery", "Juja")
    with pytest.raises(NotFound):
        set_fulfilment(tenant.id, order.pk, order.customer_id + 999, "pickup")
    mark_order_paid(tenant.id, order.pk, payment_reference="QK1")
    with pytest.raises(OrderStateError):
        set_fulfilment(tenant.id, order.pk, order.customer_id, "pickup")


def test_another_tenants_order_is_not_found(tenant, stranger) -> None:
    _settings(stranger)
    order = _order(tenant, 3000)
    with pytest.raises(NotFound):
        set_fulfilment(stranger.id, order.pk, order.customer_id, "pickup")


def test_staff_see_delivery_details_on_the_order_page(tenant) -> None:
    _settings(tenant)
    order = _order(tenant, 3000)
    set_fulfilment(tenant.id, order.pk, order.customer_id, "delivery", "Kilimani, Argwings Rd")
    add_staff_member(tenant.id, username="owner_f", password="x-Pass-1234f", role="owner")
    client = Client()
    assert client.login(username="owner_f", password="x-Pass-1234f")
    page = client.get(reverse("admin:commerce_order_change", args=[order.pk])).content.decode()
    assert "Kilimani, Argwings Rd" in page
    assert "Westlands" in page


def test_demo_shops_deliver_and_take_returns_as_their_documents_say() -> None:
    kicks, mboga = seed_tenants()
    for _ in range(2):  # idempotent
        seed_fulfilment([kicks, mboga])
        seed_return_policies([kicks, mboga])
    westlands = zone_for(options_for(kicks.id), "Kilimani")
    assert westlands is not None
    assert (westlands.name, westlands.fee) == ("Westlands", Decimal(250))
    assert options_for(kicks.id).free_delivery_from == Decimal(10000)
    assert zone_for(options_for(mboga.id), "Kawangware").fee == Decimal(100)
    with tenant_context(kicks.id):
        assert ReturnPolicy.objects.get().return_days == 7
    with tenant_context(mboga.id):
        assert ReturnPolicy.objects.get().category_rules["mboga"]["return_days"] == 1
