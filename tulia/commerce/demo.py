"""Demo catalogs, offers and coupons for the demo shops. Safe to run again."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import Tenant
from tulia.commerce.demo_data import grocery_rows, sneaker_rows
from tulia.commerce.importer import import_catalog
from tulia.commerce.indexing import embed_items
from tulia.commerce.models import CatalogItem, Category, Coupon, Offer

# code -> offer fields (category given by name, resolved per tenant)
KICKS_OFFERS: dict[str, dict[str, Any]] = {
    "KICKS10": {"name": "10% off orders over KES 10,000", "kind": "percentage", "value": 10,
                "min_spend": 10000},
    "FIRSTPAIR": {"name": "KES 1,000 off your first pair", "kind": "fixed", "value": 1000,
                  "min_spend": 5000, "usage_limit_per_customer": 1},
    "RUN15": {"name": "15% off running shoes", "kind": "percentage", "value": 15,
              "scope": "category", "category": "Running", "days": 30},
    "VIPKICKS": {"name": "VIP 20% (private code)", "kind": "percentage", "value": 20,
                 "advertised": False, "usage_limit_total": 50},
}  # fmt: skip
MBOGA_OFFERS: dict[str, dict[str, Any]] = {
    "MBOGA50": {"name": "Punguzo la KES 50 ukinunua zaidi ya 500", "kind": "fixed",
                "value": 50, "min_spend": 500},
    "MATUNDA10": {"name": "10% kwa matunda yote", "kind": "percentage", "value": 10,
                  "scope": "category", "category": "Matunda", "days": 14},
}  # fmt: skip


def _offer(tenant_id: Any, code: str, spec: dict[str, Any]) -> None:
    fields = dict(spec)
    days = fields.pop("days", None)
    category = fields.pop("category", None)
    if category:
        fields["category"] = Category.objects.get(tenant_id=tenant_id, name=category)
    if days:
        fields["ends_at"] = timezone.now() + timedelta(days=days)
    for money in ("value", "min_spend"):
        if money in fields:
            fields[money] = Decimal(fields[money])
    coupon = Coupon.objects.filter(tenant_id=tenant_id, code=code).first()
    if coupon is None:
        offer = Offer.objects.create(tenant_id=tenant_id, **fields)
        Coupon.objects.create(tenant_id=tenant_id, offer=offer, code=code)
    else:
        Offer.objects.filter(pk=coupon.offer_id).update(**fields)


def _seed(tenant: Tenant, rows: list[dict[str, Any]], offers: dict[str, dict[str, Any]]) -> None:
    report = import_catalog(tenant.id, json.dumps(rows), "json")
    if not report.ok:
        raise ValueError(f"demo catalog for {tenant.slug} is invalid: {report.errors[:3]}")
    with tenant_context(tenant.id) as tid:
        for code, spec in offers.items():
            _offer(tid, code, spec)
        ids = list(CatalogItem.objects.filter(tenant_id=tid).values_list("id", flat=True))
    # The demo should search well at once, without waiting for a worker.
    embed_items(tenant.id, ids)


CATALOGS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "kicks-nairobi": sneaker_rows,
    "mama-mboga": grocery_rows,
}
OFFERS = {"kicks-nairobi": KICKS_OFFERS, "mama-mboga": MBOGA_OFFERS}


def seed_commerce(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        if tenant.slug in CATALOGS:
            _seed(tenant, CATALOGS[tenant.slug](), OFFERS[tenant.slug])
