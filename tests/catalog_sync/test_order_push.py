"""A paid WhatsApp order of synced goods is created in the store, once, through the real
payment path: the M-Pesa callback settles the payment, the order becomes paid, the push
task creates the order in the emulated store, and the store's stock goes down there."""

from __future__ import annotations

from decimal import Decimal

import pytest

from payments.mpesa.stk import initiate_stk_push
from tenants.context import tenant_context
from tests.payments.conftest import equip, mpesa_fixture
from tulia.catalog_sync.emulators.shopify import LOCATION
from tulia.catalog_sync.models import (
    ConflictKind,
    ExternalProduct,
    StockOwner,
    StoreConnection,
    SyncConflict,
    UpstreamOrder,
)
from tulia.catalog_sync.push import push_paid_order
from tulia.catalog_sync.sync import run_import
from tulia.commerce.models import CatalogItem, Order, Variant

pytestmark = pytest.mark.django_db
PRICE = "1500.00"  # what the success callback fixture says was paid


def _import(tenant, connection) -> None:
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=connection.pk).update(import_status="running")
    run_import(tenant.id, connection.pk)


def _synced(tenant, external_id: int) -> CatalogItem:
    with tenant_context(tenant.id):
        item = ExternalProduct.objects.get(external_id=str(external_id)).item
        assert item is not None
        return item


def _pay(tenant, daraja, post_callback, order: Order) -> None:
    """The customer pays by STK push; the provider's success callback settles it."""
    equip(tenant, daraja.base_url)
    daraja.script(deliver=False)
    payment = initiate_stk_push(tenant.id, order.pk, confirmed_amount=Decimal(PRICE))
    body = mpesa_fixture("stk_callback_success.json", payment.provider_reference)
    assert post_callback(tenant, "stk_callback", body).status_code == 200
    with tenant_context(tenant.id):
        assert Order.objects.get(pk=order.pk).status == "paid"


def test_a_paid_order_is_created_in_shopify_once_and_its_stock_goes_down(
    *,
    tenant,
    stranger,
    shopify,
    shopify_shop,
    daraja,
    post_callback,
    make_customer_order,
    replay,
) -> None:
    shoe = shopify.add_product("Court low", PRICE, stock=3, sizes=("41", "42"), notify=False)
    _import(tenant, shopify_shop)
    item = _synced(tenant, shoe.id)
    with tenant_context(tenant.id):
        size_42 = Variant.objects.get(item=item, attributes={"Size": "42"})
    _pay(tenant, daraja, post_callback, make_customer_order(item, size_42))
    [created] = shopify.orders
    assert created.lines == [(shoe.variants[1].id, 1)]
    assert shoe.variants[1].levels[LOCATION] == 2  # the store took the goods
    with tenant_context(tenant.id):
        pushed = UpstreamOrder.objects.get()
    assert pushed.upstream_id == f"gid://shopify/Order/{created.id}"
    assert pushed.key in created.tags
    # The store's inventory webhook brings its number back: ours follows, taken once.
    for delivery in shopify.outbox.dropped:
        replay(delivery)
    with tenant_context(tenant.id):
        assert Variant.objects.get(pk=size_42.pk).stock == 2
    # The task run again (a redelivered Celery message) sends nothing more.
    assert push_paid_order(tenant.id, pushed.order_id) == [pushed.upstream_id]
    assert len(shopify.orders) == 1
    with tenant_context(stranger.id):
        assert not UpstreamOrder.objects.exists()


def test_a_lost_answer_is_found_by_its_key_not_sent_twice(
    tenant, shopify, shopify_shop, make_customer_order
) -> None:
    product = shopify.add_product("Slide", PRICE, stock=4, notify=False)
    _import(tenant, shopify_shop)
    order = make_customer_order(_synced(tenant, product.id))
    shopify.lose_next_answer = True  # created in the store, the answer never reaches us
    with pytest.raises(Exception, match="store_error"):
        push_paid_order(tenant.id, order.pk)
    with tenant_context(tenant.id):
        UpstreamOrder.objects.update(claimed_until=None)  # the lease of the dead attempt
    [upstream_id] = push_paid_order(tenant.id, order.pk)
    assert len(shopify.orders) == 1
    assert upstream_id == f"gid://shopify/Order/{shopify.orders[0].id}"
    assert product.variants[0].levels[LOCATION] == 3


def test_a_paid_order_is_created_in_woocommerce_and_its_stock_goes_down(
    *,
    tenant,
    woo,
    woo_shop,
    daraja,
    post_callback,
    make_customer_order,
    replay,
) -> None:
    dress = woo.add_product("Kitenge dress", PRICE, stock=5, sizes=("M", "L"), notify=False)
    _import(tenant, woo_shop)
    item = _synced(tenant, dress.id)
    with tenant_context(tenant.id):
        large = Variant.objects.get(item=item, attributes={"Size": "L"})
    _pay(tenant, daraja, post_callback, make_customer_order(item, large))
    [created] = woo.orders
    assert created["line_items"][0]["variation_id"] == dress.variations[1]
    assert woo.products[dress.variations[1]].stock == 4
    for delivery in woo.outbox.dropped:
        replay(delivery)
    with tenant_context(tenant.id):
        assert Variant.objects.get(pk=large.pk).stock == 4
        assert UpstreamOrder.objects.get().upstream_id == str(created["id"])


def test_a_store_whose_stock_we_own_hears_nothing(
    *,
    tenant,
    shopify,
    shopify_shop,
    daraja,
    post_callback,
    make_customer_order,
) -> None:
    product = shopify.add_product("Sandal", PRICE, notify=False)
    _import(tenant, shopify_shop)
    with tenant_context(tenant.id):
        StoreConnection.objects.update(stock_owner=StockOwner.TULIA)
    _pay(tenant, daraja, post_callback, make_customer_order(_synced(tenant, product.id)))
    assert shopify.orders == []


def test_an_order_the_store_refuses_is_queued_for_the_owner(
    tenant, shopify, shopify_shop, make_customer_order
) -> None:
    product = shopify.add_product("Gone soon", PRICE, notify=False)
    _import(tenant, shopify_shop)
    order = make_customer_order(_synced(tenant, product.id))
    shopify.products.pop(product.id)  # deleted there, the webhook not yet in
    with pytest.raises(Exception, match="order_refused"):
        push_paid_order(tenant.id, order.pk)
    with tenant_context(tenant.id):
        conflict = SyncConflict.objects.get()
    assert conflict.kind == ConflictKind.ORDER_NOT_PUSHED
    assert shopify.orders == []
