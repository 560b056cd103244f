"""The demo seed: both shops get catalogs, offers and coupons, and reseeding is a no-op."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.demo import seed_tenants
from tulia.commerce.demo import seed_commerce
from tulia.commerce.models import CatalogItem, Coupon, Offer, Variant
from tulia.commerce.search import search_catalog

pytestmark = pytest.mark.django_db


def _counts(tenant) -> tuple[int, int, int, int]:
    with tenant_context(tenant.id):
        return (
            CatalogItem.objects.count(),
            Variant.objects.count(),
            Offer.objects.count(),
            Coupon.objects.count(),
        )


def test_demo_catalogs_are_seeded_once() -> None:
    kicks, mboga = seed_tenants()
    seed_commerce([kicks, mboga])
    first = (_counts(kicks), _counts(mboga))
    seed_commerce([kicks, mboga])
    assert (_counts(kicks), _counts(mboga)) == first
    items, variants, offers, coupons = first[0]
    assert items >= 200
    assert variants >= 1000
    assert offers == coupons == 4
    assert first[1][0] >= 40
    assert first[1][3] == 2
    raba = search_catalog(kicks.id, "raba nyeusi za nike").hits
    assert raba
    assert raba[0].item.brand == "Nike"
    sukuma = search_catalog(mboga.id, "sukuma").hits
    assert sukuma[0].item.name.startswith("Sukuma Wiki")
