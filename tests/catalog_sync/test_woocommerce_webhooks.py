"""WooCommerce webhooks, one fixture per event, plus live deliveries from the emulator."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tenants.context import tenant_context
from tools.runner import call_tool
from tulia.catalog_sync.models import (
    DeliveryStatus,
    ExternalProduct,
    StoreConnection,
    WebhookDelivery,
)
from tulia.catalog_sync.sync import run_import
from tulia.commerce.models import CatalogItem, Variant

from .conftest import fixture_body

pytestmark = pytest.mark.django_db
PRODUCT = 501
OLD, NEW = "2026-11-21T07:00:00", "2026-11-21T07:05:00"


def _body(name: str, price: str = "2400", stock: int = 6, modified: str = OLD) -> bytes:
    return fixture_body(
        "woocommerce",
        name,
        id=PRODUCT,
        price=price,
        stock=stock,
        modified=modified,
        modified_local=modified,
    )


def _item(tenant) -> CatalogItem | None:
    with tenant_context(tenant.id):
        mapping = (
            ExternalProduct.objects.select_related("item").filter(external_id=str(PRODUCT)).first()
        )
        return mapping.item if mapping else None


def _statuses(tenant) -> list[str]:
    with tenant_context(tenant.id):
        return list(WebhookDelivery.objects.order_by("id").values_list("status", flat=True))


def test_product_created_makes_a_simple_item(post_signed, tenant, woo_shop) -> None:
    assert post_signed(woo_shop, "product.created", _body("product_created.json"), "1") == 200
    item = _item(tenant)
    assert item is not None
    assert item.name == "Kitenge wrap dress"
    assert (item.price, item.stock) == (Decimal(2400), 6)
    assert item.link_url.startswith("https://duka.example.co.ke/")


def test_product_updated_changes_price_and_stock(post_signed, tenant, woo_shop) -> None:
    post_signed(woo_shop, "product.created", _body("product_created.json"), "1")
    post_signed(woo_shop, "product.updated", _body("product_updated.json", "2100", 2, NEW), "2")
    item = _item(tenant)
    assert item is not None
    assert (item.price, item.stock) == (Decimal(2100), 2)


def test_an_out_of_order_update_is_kept_but_not_applied(post_signed, tenant, woo_shop) -> None:
    post_signed(woo_shop, "product.updated", _body("product_updated.json", "2100", 2, NEW), "2")
    post_signed(woo_shop, "product.updated", _body("product_updated.json", "2400", 6, OLD), "1")
    item = _item(tenant)
    assert item is not None
    assert item.price == Decimal(2100)
    assert _statuses(tenant) == [DeliveryStatus.APPLIED, DeliveryStatus.STALE]


def test_a_duplicate_delivery_id_is_stored_once(post_signed, tenant, woo_shop) -> None:
    body = _body("product_created.json")
    assert post_signed(woo_shop, "product.created", body, "7") == 200
    assert post_signed(woo_shop, "product.created", body, "7") == 200
    assert len(_statuses(tenant)) == 1


def test_a_bad_signature_is_refused(post_signed, tenant, woo_shop) -> None:
    body = _body("product_created.json")
    assert post_signed(woo_shop, "product.created", body, "1", secret="guess") == 401
    assert _statuses(tenant) == []
    assert _item(tenant) is None


def test_product_deleted_removes_the_item(post_signed, tenant, woo_shop) -> None:
    post_signed(woo_shop, "product.created", _body("product_created.json"), "1")
    deleted = fixture_body("woocommerce", "product_deleted.json", id=PRODUCT)
    assert post_signed(woo_shop, "product.deleted", deleted, "2") == 200
    with tenant_context(tenant.id):
        assert not CatalogItem.objects.exists()


def test_the_unsigned_ping_on_creation_is_answered_and_not_stored(client, tenant, woo_shop) -> None:
    from urllib.parse import urlsplit

    from tulia.catalog_sync.connectors import webhook_url

    path = urlsplit(webhook_url(woo_shop)).path
    answer = client.post(
        path, data="webhook_id=12", content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 200
    assert _statuses(tenant) == []


def test_a_variation_change_from_the_emulator_updates_that_size(
    replay, tenant, woo, woo_shop
) -> None:
    dress = woo.add_product("Dera", "1800", stock=4, sizes=("M", "L"))
    assert replay(woo.outbox.dropped[-1]) == 200
    large = dress.variations[1]
    assert replay(woo.update(large, stock=0)) == 200  # the variation's own webhook
    with tenant_context(tenant.id):
        stock = {v.attributes["Size"]: v.stock for v in Variant.objects.all()}
    assert stock == {"M": 4, "L": 0}


def test_a_product_the_store_does_not_count_is_sold_without_a_made_up_count(
    tenant, woo, woo_shop, replay
) -> None:
    uncounted = woo.add_product("Handmade basket", "1200", notify=False)
    uncounted.manage_stock = False
    sized = woo.add_product("Ankara shirt", "2200", sizes=("M", "L"), notify=False)
    for child in sized.variations:
        woo.products[child].manage_stock = False
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=woo_shop.pk).update(import_status="running")
    run_import(tenant.id, woo_shop.pk)
    for product in (uncounted, sized):
        quoted = _quote(tenant, product.id)
        assert quoted.in_stock is True
        assert quoted.stock is None  # available, and no number for the bot to quote
        assert all(v.stock is None and v.in_stock for v in quoted.variants)
    # The shop starts counting: the count arrives with the next update.
    uncounted.manage_stock = True
    delivery = woo.update(uncounted.id, stock=3)
    assert delivery is not None
    assert replay(delivery) == 200
    assert _quote(tenant, uncounted.id).stock == 3


def _quote(tenant, external_id: int):
    with tenant_context(tenant.id):
        item_id = ExternalProduct.objects.get(external_id=str(external_id)).item_id
    args = {
        "tenant_id": str(tenant.id),
        "request_id": "r",
        "conversation_id": 1,
        "item_id": item_id,
    }
    return call_tool("catalog_get_item", args).unwrap()
