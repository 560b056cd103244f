"""Properties of applying store events: any delivery order, any redelivery, same end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tulia.catalog_sync.apply import apply_level, apply_product
from tulia.catalog_sync.emulators.webhooks import sign
from tulia.catalog_sync.handlers import process_delivery
from tulia.catalog_sync.ingest import Envelope, accept
from tulia.catalog_sync.models import DeliveryStatus, WebhookDelivery
from tulia.catalog_sync.upstream import Level, UpstreamProduct, UpstreamVariant
from tulia.commerce.models import CatalogItem

from ..hypothesis_profiles import examples
from .conftest import fixture_body

pytestmark = pytest.mark.django_db
START = datetime(2026, 11, 21, 7, 0, tzinfo=UTC)


def _state(n: int) -> UpstreamProduct:
    variant = UpstreamVariant("91", "S-1", Decimal(1000 + n), n, {}, inventory_item_id="71")
    return UpstreamProduct("90", "Runner", START + timedelta(minutes=n), True, variants=(variant,))


# Event n carries price 1000+n and stock n at minute n; deliveries are any order of them,
# each possibly delivered more than once.
deliveries = st.lists(st.integers(0, 7), min_size=1, max_size=12)


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(order=deliveries)
def test_the_newest_state_wins_whatever_the_delivery_order(tenant, shopify_shop, order) -> None:
    with tenant_context(tenant.id), transaction.atomic():
        for n in order:
            apply_product(shopify_shop, _state(n))
        item = CatalogItem.objects.get(sku="SHOP-90")
        assert (item.price, item.stock) == (Decimal(1000 + max(order)), max(order))
        transaction.set_rollback(True)


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    readings=st.lists(
        st.tuples(st.integers(1, 3), st.integers(0, 9), st.integers(0, 50)), min_size=1, max_size=15
    )
)
def test_stock_is_the_sum_of_each_locations_newest_reading(tenant, shopify_shop, readings) -> None:
    with tenant_context(tenant.id), transaction.atomic():
        apply_product(shopify_shop, _state(0))
        newest: dict[int, tuple[int, int]] = {}
        for location, minute, available in readings:
            at = START + timedelta(minutes=minute)
            applied = apply_level(shopify_shop, Level("71", str(location), available, at))
            held = newest.get(location)
            if held is None or minute > held[0]:
                newest[location] = (minute, available)
            # The same second as a different reading: a tie, left for the store to settle.
            assert applied.tie == (held is not None and minute == held[0] and available != held[1])
        assert CatalogItem.objects.get(sku="SHOP-90").stock == sum(a for _, a in newest.values())
        transaction.set_rollback(True)


def test_another_tenant_cannot_process_our_delivery(tenant, stranger, shopify_shop) -> None:
    body = fixture_body("shopify", "products_delete.json", id=1)
    headers = {
        "X-Shopify-Hmac-Sha256": sign("shpss_kicks_app_secret", body),
        "X-Shopify-Webhook-Id": "w-9",
        "X-Shopify-Topic": "products/delete",
    }
    delivery_id = accept(
        Envelope("shopify", str(tenant.id), shopify_shop.webhook_token, body, headers)
    )
    assert delivery_id is not None
    with pytest.raises(WebhookDelivery.DoesNotExist):
        process_delivery(stranger.id, delivery_id)
    with tenant_context(tenant.id):
        assert WebhookDelivery.objects.get(pk=delivery_id).status == DeliveryStatus.RECEIVED
