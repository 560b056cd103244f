"""Two edits in the same second carry the same `updated_at`: the event cannot tell which
is newer, so a differing one is settled by asking the store for its present state.
Whatever order the two deliveries arrive in, the bot ends on the store's last edit."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tenants.context import tenant_context
from tulia.catalog_sync.models import (
    DeliveryStatus,
    ExternalProduct,
    StoreConnection,
    WebhookDelivery,
)
from tulia.catalog_sync.sync import run_import
from tulia.commerce.models import CatalogItem

pytestmark = pytest.mark.django_db


def _imported(tenant, connection) -> None:
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=connection.pk).update(import_status="running")
    run_import(tenant.id, connection.pk)


def _item(tenant, external_id: int) -> CatalogItem:
    with tenant_context(tenant.id):
        item = ExternalProduct.objects.get(external_id=str(external_id)).item
        assert item is not None
        return item


@pytest.mark.parametrize("newer_first", [True, False])
def test_shopify_price_edits_in_one_second_end_on_the_last(
    tenant, shopify, shopify_shop, replay, newer_first
) -> None:
    product = shopify.add_product("Mule", "3000.00", notify=False)
    _imported(tenant, shopify_shop)
    first = shopify.set_price(product.id, "2800.00")
    shopify.same_second = True
    last = shopify.set_price(product.id, "2600.00")
    assert first is not None
    assert last is not None
    shopify.operations.clear()
    for delivery in (last, first) if newer_first else (first, last):
        assert replay(delivery) == 200
    assert shopify.operations == ["Product"]  # the tie, settled by one question
    assert _item(tenant, product.id).price == Decimal(2600)
    with tenant_context(tenant.id):
        statuses = set(WebhookDelivery.objects.values_list("status", flat=True))
    assert statuses == {DeliveryStatus.APPLIED}


def test_shopify_stock_readings_in_one_second_end_on_the_last(
    tenant, shopify, shopify_shop, replay
) -> None:
    product = shopify.add_product("Clog", "2000.00", stock=9, notify=False)
    _imported(tenant, shopify_shop)
    first = shopify.set_stock(product.id, 5)
    shopify.same_second = True
    last = shopify.set_stock(product.id, 2)
    assert first is not None
    assert last is not None
    replay(last)
    replay(first)
    assert _item(tenant, product.id).stock == 2


def test_woocommerce_edits_in_one_second_end_on_the_last(tenant, woo, woo_shop, replay) -> None:
    product = woo.add_product("Tote bag", "900", notify=False)
    _imported(tenant, woo_shop)
    first = woo.update(product.id, price="850")
    woo.same_second = True
    last = woo.update(product.id, price="800")
    assert first is not None
    assert last is not None
    replay(last)
    replay(first)
    assert _item(tenant, product.id).price == Decimal(800)


def test_the_same_state_redelivered_in_its_second_asks_nothing(
    tenant, shopify, shopify_shop, replay
) -> None:
    product = shopify.add_product("Loafer", "4000.00", notify=False)
    _imported(tenant, shopify_shop)
    delivery = shopify.set_price(product.id, "3900.00")
    assert delivery is not None
    replay(delivery)
    shopify.operations.clear()
    twin = type(delivery)(
        delivery.url, delivery.body, {**delivery.headers, "X-Shopify-Webhook-Id": "twin"}
    )
    assert replay(twin) == 200
    assert shopify.operations == []  # nothing to settle: the store is not asked
    assert _item(tenant, product.id).price == Decimal(3900)
