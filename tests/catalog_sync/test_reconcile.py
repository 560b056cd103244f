"""The reconcile repairs what lost webhooks left behind and reports it; ownership rules."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tulia.catalog_sync.emulators.shopify import LOCATION
from tulia.catalog_sync.emulators.webhooks import sign
from tulia.catalog_sync.models import (
    ConflictKind,
    DeliveryStatus,
    StockOwner,
    StoreConnection,
    SyncConflict,
    WebhookDelivery,
)
from tulia.catalog_sync.sync import reconcile, run_import
from tulia.catalog_sync.tasks import reconcile_all
from tulia.celery import app as celery_app
from tulia.commerce.models import CatalogItem, Variant
from tulia.commerce.orders import mark_order_paid

from .conftest import APP_SECRET, fixture_body

pytestmark = pytest.mark.django_db


def _imported(tenant, shop, emulator, count: int) -> None:
    emulator.seed(count, sized_every=0)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=shop.pk).update(import_status="running")
    run_import(tenant.id, shop.pk)


def _by_sku(tenant, prefix: str, external_id: int) -> CatalogItem | None:
    with tenant_context(tenant.id):
        return CatalogItem.objects.filter(sku=f"{prefix}{external_id}").first()


def test_reconcile_repairs_what_dropped_webhooks_missed(tenant, shopify, shopify_shop) -> None:
    _imported(tenant, shopify_shop, shopify, 25)
    first, second, third = sorted(shopify.products)[:3]
    shopify.set_price(first, "777.00")
    shopify.set_stock(second, 0)
    shopify.delete_product(third)
    new = shopify.add_product("Brand new runner", "2500.00").id
    assert len(shopify.outbox.dropped) == 4  # every webhook lost
    run = reconcile(tenant.id, shopify_shop.pk)
    assert (run.checked, run.repaired) == (25, 4), run.drift
    assert _by_sku(tenant, "SHOP-", first).price == Decimal(777)
    assert _by_sku(tenant, "SHOP-", second).stock == 0
    assert _by_sku(tenant, "SHOP-", third) is None
    assert _by_sku(tenant, "SHOP-", new).price == Decimal(2500)
    assert any("price" in line for line in run.drift)
    assert reconcile(tenant.id, shopify_shop.pk).repaired == 0  # nothing left to repair


def test_reconcile_repairs_a_local_edit_to_a_synced_item(tenant, woo, woo_shop) -> None:
    _imported(tenant, woo_shop, woo, 5)
    product = sorted(p for p in woo.products)[0]
    with tenant_context(tenant.id):
        CatalogItem.objects.filter(sku=f"WOO-{product}").update(price=1)
    run = reconcile(tenant.id, woo_shop.pk)
    assert run.repaired == 1
    assert _by_sku(tenant, "WOO-", product).price == Decimal(800)


def test_when_tulia_owns_stock_the_store_stock_is_reported_not_applied(
    tenant, woo, woo_shop
) -> None:
    _imported(tenant, woo_shop, woo, 3)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=woo_shop.pk).update(stock_owner=StockOwner.TULIA)
    product = sorted(woo.products)[1]
    woo.update(product, stock=40)
    run = reconcile(tenant.id, woo_shop.pk)
    assert _by_sku(tenant, "WOO-", product).stock == 1
    assert any("kept ours" in line for line in run.drift)


def test_a_product_with_open_orders_is_withdrawn_not_deleted_and_queued(
    tenant, woo, woo_shop, make_customer_order
) -> None:
    _imported(tenant, woo_shop, woo, 3)
    product = sorted(woo.products)[0]
    item = _by_sku(tenant, "WOO-", product)
    order = make_customer_order(item)
    woo.delete(product)
    reconcile(tenant.id, woo_shop.pk)
    kept = _by_sku(tenant, "WOO-", product)
    assert kept is not None
    assert not kept.is_active
    with tenant_context(tenant.id):
        conflict = SyncConflict.objects.get()
    assert conflict.kind == ConflictKind.DELETE_WITH_OPEN_ORDERS
    assert order.reference in conflict.detail


def test_the_beat_reconciles_every_active_connection(
    tenant, shopify, shopify_shop, monkeypatch
) -> None:
    assert "catalog_sync.reconcile_all" in {
        e["task"] for e in celery_app.conf.beat_schedule.values()
    }
    _imported(tenant, shopify_shop, shopify, 3)
    shopify.set_price(sorted(shopify.products)[0], "999.00")
    assert reconcile_all() == 1  # tasks run eagerly here
    assert _by_sku(tenant, "SHOP-", sorted(shopify.products)[0]).price == Decimal(999)


def test_a_paid_order_is_not_taken_from_stock_twice_when_the_platform_owns_it(
    post_signed, tenant, shopify_shop, make_customer_order
) -> None:
    """The shop's platform got the order too and took its unit: its new absolute level
    replaces ours, so the unit our payment took is not taken a second time."""
    body = fixture_body(
        "shopify",
        "products_create.json",
        id=8001,
        price="4500.00",
        updated_at="2026-11-21T10:00:00+03:00",
    )
    post_signed(shopify_shop, "products/create", body, "c-1")
    with tenant_context(tenant.id):
        variant = Variant.objects.select_related("item").get(sku="SHOP-V44001")
    order = make_customer_order(variant.item, variant=variant)
    mark_order_paid(tenant.id, order.pk, payment_reference="QK12ABC345")
    with tenant_context(tenant.id):
        assert Variant.objects.get(pk=variant.pk).stock == 3  # ours took the unit at once
    level = fixture_body(
        "shopify",
        "inventory_levels_update.json",
        inventory_item_id=55001,
        location_id=LOCATION,
        available=3,
        updated_at="2026-11-21T10:20:00+03:00",
    )
    post_signed(shopify_shop, "inventory_levels/update", level, "inv-1")
    with tenant_context(tenant.id):
        assert Variant.objects.get(pk=variant.pk).stock == 3  # not 2


def test_a_delivery_stored_while_the_broker_was_down_is_swept_up(tenant, shopify_shop) -> None:
    from tulia.catalog_sync.ingest import Envelope, accept
    from tulia.catalog_sync.tasks import sweep_deliveries

    body = fixture_body(
        "shopify",
        "products_create.json",
        id=8001,
        price="4500.00",
        updated_at="2026-11-21T10:00:00+03:00",
    )
    headers = {
        "X-Shopify-Hmac-Sha256": sign(APP_SECRET, body),
        "X-Shopify-Webhook-Id": "w-1",
        "X-Shopify-Topic": "products/create",
    }
    envelope = Envelope("shopify", str(tenant.id), shopify_shop.webhook_token, body, headers)
    delivery_id = accept(envelope)  # stored; its task never ran (no commit in this test)
    assert delivery_id is not None
    with tenant_context(tenant.id):
        WebhookDelivery.objects.filter(pk=delivery_id).update(
            received_at=timezone.now() - timedelta(minutes=5)
        )
    assert sweep_deliveries() == 1
    with tenant_context(tenant.id):
        assert WebhookDelivery.objects.get(pk=delivery_id).status == DeliveryStatus.APPLIED
        assert CatalogItem.objects.filter(sku="SHOP-8001").exists()
