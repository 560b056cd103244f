"""Stock and price webhooks keep the item searchable without embedding it again; a new
title is embedded again. (The embedding of an item whose words did not change is the
same vector: computing it on every stock tick is only cost.)"""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tulia.catalog_sync.models import ExternalProduct, StoreConnection
from tulia.catalog_sync.sync import run_import
from tulia.commerce.models import CatalogItem
from tulia.embeddings import get_embedder

pytestmark = pytest.mark.django_db
EARLIER = "embedded-before-this-test"


def _item(tenant, external_id: int) -> CatalogItem:
    with tenant_context(tenant.id):
        return CatalogItem.objects.get(external__external_id=str(external_id))


def _mark_embedded(tenant, item: CatalogItem) -> None:
    """As if embedded earlier: a later embedding of the item would overwrite the mark."""
    with tenant_context(tenant.id):
        CatalogItem.objects.filter(pk=item.pk).update(embedding_model=EARLIER)


@pytest.fixture
def imported(tenant, shopify, shopify_shop, django_capture_on_commit_callbacks):
    product = shopify.add_product("Canvas high top", "2000.00", stock=4, notify=False)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=shopify_shop.pk).update(import_status="running")
    with django_capture_on_commit_callbacks(execute=True):
        run_import(tenant.id, shopify_shop.pk)
    assert _item(tenant, product.id).embedding_model == get_embedder().name
    _mark_embedded(tenant, _item(tenant, product.id))
    return product


def test_stock_and_price_webhooks_do_not_embed_again(tenant, shopify, replay, imported) -> None:
    for delivery in (shopify.set_stock(imported.id, 0), shopify.set_price(imported.id, "1800.00")):
        assert delivery is not None
        assert replay(delivery) == 200
    item = _item(tenant, imported.id)
    assert (item.stock, item.in_stock, item.price) == (0, False, 1800)
    assert item.embedding_model == EARLIER


def test_a_new_title_is_embedded_again(tenant, shopify, replay, imported) -> None:
    imported.title = "Canvas high top, limited colours"
    delivery = shopify.set_price(imported.id, "2000.00")  # any update carries the title
    assert delivery is not None
    assert replay(delivery) == 200
    assert _item(tenant, imported.id).embedding_model == get_embedder().name
    with tenant_context(tenant.id):
        assert ExternalProduct.objects.get(external_id=str(imported.id)).item_id
