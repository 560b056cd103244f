"""Shopify webhooks, one fixture per event, through the real signed endpoint."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tenants.context import tenant_context
from tools.runner import call_tool
from tulia.catalog_sync.models import (
    ConflictKind,
    DeliveryStatus,
    ExternalProduct,
    SyncConflict,
    WebhookDelivery,
)
from tulia.commerce.models import CatalogItem, Variant

from .conftest import fixture_body

pytestmark = pytest.mark.django_db
PRODUCT = 8001
T1, T2, T3 = "2026-11-21T10:00:00+03:00", "2026-11-21T10:05:00+03:00", "2026-11-21T10:10:00+03:00"


def _product(topic: str, price: str, at: str) -> bytes:
    name = "products_create.json" if topic == "products/create" else "products_update.json"
    return fixture_body("shopify", name, id=PRODUCT, price=price, updated_at=at)


def _item(tenant) -> CatalogItem | None:
    with tenant_context(tenant.id):
        return ExternalProduct.objects.select_related("item").get(external_id=str(PRODUCT)).item


def _deliveries(tenant) -> list[WebhookDelivery]:
    with tenant_context(tenant.id):
        return list(WebhookDelivery.objects.order_by("id"))


def test_products_create_makes_an_item_with_sized_variants(
    post_signed, tenant, shopify_shop
) -> None:
    assert (
        post_signed(
            shopify_shop, "products/create", _product("products/create", "4500.00", T1), "d-1"
        )
        == 200
    )
    item = _item(tenant)
    with tenant_context(tenant.id):
        variants = {v.attributes["Size"]: v for v in Variant.objects.filter(item=item)}
    assert (item.name, item.brand) == ("Air Max 90 Infrared", "Nike")
    assert item.price == Decimal(4500)
    assert (variants["41"].stock, variants["42"].stock) == (4, 0)
    assert item.image_url.endswith("am90.jpg")
    assert _deliveries(tenant)[0].status == DeliveryStatus.APPLIED


def test_products_update_changes_the_price_the_bot_quotes(
    post_signed, tenant, shopify_shop
) -> None:
    post_signed(shopify_shop, "products/create", _product("products/create", "4500.00", T1), "d-1")
    post_signed(shopify_shop, "products/update", _product("products/update", "3999.00", T2), "d-2")
    item = _item(tenant)
    quoted = call_tool(
        "catalog_get_item",
        {"tenant_id": str(tenant.id), "request_id": "r1", "conversation_id": 1, "item_id": item.pk},
    ).unwrap()
    assert quoted.price == Decimal(3999)


def test_an_older_update_arriving_late_never_overwrites_a_newer_one(
    post_signed, tenant, shopify_shop
) -> None:
    post_signed(
        shopify_shop, "products/update", _product("products/update", "5000.00", T3), "d-new"
    )
    post_signed(
        shopify_shop, "products/update", _product("products/update", "3000.00", T2), "d-old"
    )
    assert _item(tenant).price == Decimal(5000)
    assert [d.status for d in _deliveries(tenant)] == [DeliveryStatus.APPLIED, DeliveryStatus.STALE]


def test_a_duplicate_delivery_is_stored_and_applied_once(post_signed, tenant, shopify_shop) -> None:
    body = _product("products/create", "4500.00", T1)
    assert post_signed(shopify_shop, "products/create", body, "same-id") == 200
    with tenant_context(tenant.id):
        CatalogItem.objects.filter(pk=_item(tenant).pk).update(price=1)  # a later local edit
    assert post_signed(shopify_shop, "products/create", body, "same-id") == 200
    assert len(_deliveries(tenant)) == 1
    assert _item(tenant).price == Decimal(1)  # the redelivery was not applied again


def test_a_bad_signature_is_refused_and_nothing_is_stored(
    post_signed, tenant, shopify_shop
) -> None:
    body = _product("products/create", "4500.00", T1)
    assert post_signed(shopify_shop, "products/create", body, "d-1", secret="not-the-secret") == 401
    assert _deliveries(tenant) == []
    with tenant_context(tenant.id):
        assert not CatalogItem.objects.exists()


def test_a_body_changed_after_signing_is_refused(post_signed, tenant, shopify_shop) -> None:
    from urllib.parse import urlsplit

    from django.test import Client

    from tulia.catalog_sync.connectors import webhook_url
    from tulia.catalog_sync.emulators.webhooks import sign

    body = _product("products/create", "4500.00", T1)
    answer = Client().post(
        urlsplit(webhook_url(shopify_shop)).path,
        data=body.replace(b"4500.00", b"1.00"),
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="products/create",
        HTTP_X_SHOPIFY_WEBHOOK_ID="d-1",
        HTTP_X_SHOPIFY_HMAC_SHA256=sign("shpss_kicks_app_secret", body),
    )
    assert answer.status_code == 401


def test_products_delete_removes_an_item_nobody_ordered(post_signed, tenant, shopify_shop) -> None:
    post_signed(shopify_shop, "products/create", _product("products/create", "4500.00", T1), "d-1")
    post_signed(
        shopify_shop,
        "products/delete",
        fixture_body("shopify", "products_delete.json", id=PRODUCT),
        "d-2",
    )
    assert _item(tenant) is None
    with tenant_context(tenant.id):
        assert not CatalogItem.objects.exists()


def test_an_update_older_than_the_delete_does_not_bring_it_back(
    post_signed, tenant, shopify_shop
) -> None:
    post_signed(shopify_shop, "products/create", _product("products/create", "4500.00", T1), "d-1")
    post_signed(
        shopify_shop,
        "products/delete",
        fixture_body("shopify", "products_delete.json", id=PRODUCT),
        "d-2",
    )
    post_signed(shopify_shop, "products/update", _product("products/update", "4000.00", T1), "d-3")
    with tenant_context(tenant.id):
        assert not CatalogItem.objects.exists()


def test_inventory_level_events_sum_stock_per_location(post_signed, tenant, shopify_shop) -> None:
    post_signed(shopify_shop, "products/create", _product("products/create", "4500.00", T1), "d-1")
    for n, (location, available, at) in enumerate([(1, 3, T2), (2, 5, T2), (1, 9, T1)]):
        body = fixture_body(
            "shopify",
            "inventory_levels_update.json",
            inventory_item_id=55002,
            location_id=location,
            available=available,
            updated_at=at,
        )
        assert post_signed(shopify_shop, "inventory_levels/update", body, f"inv-{n}") == 200
    with tenant_context(tenant.id):
        variant = Variant.objects.get(external__inventory_item_id="55002")
    assert variant.stock == 3 + 5  # the older reading of location 1 (9) lost
    assert _deliveries(tenant)[-1].status == DeliveryStatus.STALE


def test_a_malformed_body_is_kept_as_failed_for_review(post_signed, tenant, shopify_shop) -> None:
    assert post_signed(shopify_shop, "products/update", b'{"id": "x"}', "d-bad") == 200
    delivery = _deliveries(tenant)[0]
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.raw_body == '{"id": "x"}'


def test_a_price_in_cents_is_rounded_and_queued_for_the_admin(
    post_signed, tenant, shopify_shop
) -> None:
    post_signed(shopify_shop, "products/create", _product("products/create", "4500.50", T1), "d-1")
    assert _item(tenant).price == Decimal(4501)
    with tenant_context(tenant.id):
        assert SyncConflict.objects.get().kind == ConflictKind.PRICE_NOT_WHOLE


def test_another_tenants_url_with_our_token_finds_nothing(
    post_signed, tenant, stranger, shopify_shop
) -> None:
    from django.test import Client

    from tulia.catalog_sync.emulators.webhooks import sign

    body = _product("products/create", "4500.00", T1)
    path = f"/store-sync/{stranger.id}/{shopify_shop.webhook_token}/shopify"
    answer = Client().post(
        path,
        data=body,
        content_type="application/json",
        HTTP_X_SHOPIFY_TOPIC="products/create",
        HTTP_X_SHOPIFY_WEBHOOK_ID="x",
        HTTP_X_SHOPIFY_HMAC_SHA256=sign("shpss_kicks_app_secret", body),
    )
    assert answer.status_code == 404
    for shop in (tenant, stranger):
        with tenant_context(shop.id):
            assert not WebhookDelivery.objects.exists()
