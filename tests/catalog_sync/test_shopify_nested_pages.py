"""A product bigger than one page of its own connections is never cut.

Shopify pages variants and inventory levels with their own cursors; the emulator does
the same and refuses a query whose requested cost is over the single-query maximum, so
asking for everything at once is not an option. A shoe in 12 sizes stocked at 5
locations needs follow-up queries for both.
"""

from __future__ import annotations

import httpx
import pytest

from tenants.context import tenant_context
from tulia.catalog_sync.emulators.shopify import LOCATION
from tulia.catalog_sync.models import ExternalProduct, StockLevel, StoreConnection
from tulia.catalog_sync.shopify import queries
from tulia.catalog_sync.sync import reconcile, run_import
from tulia.commerce.models import Variant

from .conftest import SHOP_TOKEN

pytestmark = pytest.mark.django_db
SIZES = tuple(str(size) for size in range(36, 48))  # 12 sizes
LOCATIONS = (LOCATION, 24826419, 24826420, 24826421, 24826422)  # 5 locations


def _variants(tenant, product_id: int) -> dict[str, Variant]:
    with tenant_context(tenant.id):
        mapping = ExternalProduct.objects.get(external_id=str(product_id))
        rows = Variant.objects.filter(item_id=mapping.item_id, is_active=True)
        return {v.attributes["Size"]: v for v in rows}


def _import(tenant, shop) -> None:
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=shop.pk).update(import_status="running")
    run_import(tenant.id, shop.pk)


@pytest.fixture
def shoe(shopify):
    shopify.seed(3, sized_every=0)
    return shopify.add_product("Trail runner", "6500.00", stock=2, sizes=SIZES, locations=LOCATIONS)


def test_the_import_reads_every_size_at_every_location(tenant, shopify, shopify_shop, shoe) -> None:
    assert len(SIZES) > queries.VARIANTS_FIRST
    assert len(LOCATIONS) > queries.LEVELS_FIRST
    _import(tenant, shopify_shop)
    variants = _variants(tenant, shoe.id)
    assert sorted(variants) == sorted(SIZES)
    assert {v.stock for v in variants.values()} == {2 * len(LOCATIONS)}
    with tenant_context(tenant.id):
        assert StockLevel.objects.count() == len(SIZES) * len(LOCATIONS) + 3


def test_the_reconcile_repairs_the_last_location_of_the_last_size(
    tenant, shopify, shopify_shop, shoe
) -> None:
    _import(tenant, shopify_shop)
    shopify.set_stock(shoe.id, 9, location=LOCATIONS[-1], variant=len(SIZES) - 1)  # dropped
    run = reconcile(tenant.id, shopify_shop.pk)
    assert run.repaired == 1, run.drift
    assert _variants(tenant, shoe.id)[SIZES[-1]].stock == 2 * 4 + 9


def test_a_webhook_for_a_location_beyond_the_first_page_lands_on_the_right_size(
    tenant, shopify, shopify_shop, replay, shoe
) -> None:
    _import(tenant, shopify_shop)
    delivery = shopify.set_stock(shoe.id, 0, location=LOCATIONS[-1], variant=len(SIZES) - 1)
    assert delivery is not None
    assert replay(delivery) == 200
    assert _variants(tenant, shoe.id)[SIZES[-1]].stock == 2 * 4
    assert _variants(tenant, shoe.id)[SIZES[0]].stock == 2 * 5


def test_the_emulator_refuses_a_query_over_the_cost_limit(shopify) -> None:
    everything = queries.PRODUCTS.replace(
        f"variants(first: {queries.VARIANTS_FIRST})", "variants(first: 100)"
    )
    answer = httpx.post(
        f"{shopify.base_url}/admin/api/2025-07/graphql.json",
        json={"query": everything, "variables": {"first": 10}},
        headers={"X-Shopify-Access-Token": SHOP_TOKEN},
    ).json()
    assert answer["errors"][0]["extensions"]["code"] == "MAX_COST_EXCEEDED"


def test_the_emulator_pages_nested_connections_like_shopify(shopify, shoe) -> None:
    answer = httpx.post(
        f"{shopify.base_url}/admin/api/2025-07/graphql.json",
        json={"query": queries.PRODUCT, "variables": {"id": f"gid://shopify/Product/{shoe.id}"}},
        headers={"X-Shopify-Access-Token": SHOP_TOKEN},
    ).json()
    variants = answer["data"]["product"]["variants"]
    assert len(variants["nodes"]) == queries.VARIANTS_FIRST
    assert variants["pageInfo"]["hasNextPage"] is True
    levels = variants["nodes"][0]["inventoryItem"]["inventoryLevels"]
    assert len(levels["nodes"]) == queries.LEVELS_FIRST
    assert levels["pageInfo"]["hasNextPage"] is True
    assert answer["extensions"]["cost"]["requestedQueryCost"] > 0
