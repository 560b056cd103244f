"""Catalog bulk import: CSV and JSON, per-row errors, all or nothing, per tenant."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tenants.context import tenant_context
from tests.commerce import factories as f
from tulia.commerce.importer import import_catalog
from tulia.commerce.models import CatalogItem, Variant

pytestmark = pytest.mark.django_db

CSV = """sku,name,price,stock,category,brand,aliases,variant_sku,attr:size,attr:colour,variant_stock
AM90,Nike Air Max 90,14500,0,Sneakers,Nike,raba|viatu,AM90-42-BLK,42,black,3
AM90,Nike Air Max 90,14500,0,Sneakers,Nike,raba|viatu,AM90-43-BLK,43,black,1
SOCK,Crew Socks,500,40,Accessories,,soksi,,,,
"""


def _count(tenant) -> tuple[int, int]:
    with tenant_context(tenant.id):
        return CatalogItem.objects.count(), Variant.objects.count()


def test_csv_rows_with_variants(tenant, stranger) -> None:
    report = import_catalog(tenant.id, CSV, "csv")
    assert report.ok
    assert (report.created, report.variants) == (2, 2)
    assert _count(tenant) == (2, 2)
    assert _count(stranger) == (0, 0)
    with tenant_context(tenant.id):
        shoe = CatalogItem.objects.select_related("category").get(sku="AM90")
    assert shoe.aliases == ["raba", "viatu"]
    assert shoe.category is not None
    assert shoe.category.name == "Sneakers"
    assert "raba" in shoe.search_text
    assert "42" in shoe.search_text


def test_one_bad_row_imports_nothing(tenant) -> None:
    rows = [
        {"sku": "A1", "name": "Good", "price": 100},
        {"sku": "A2", "name": "", "price": "12.50"},
        {"sku": "A1", "name": "Duplicate", "price": 100},
    ]
    report = import_catalog(tenant.id, json.dumps(rows), "json")
    assert not report.ok
    by_row = {(e.row, e.field) for e in report.errors}
    assert {(2, "name"), (2, "price"), (3, "sku")} <= by_row
    assert _count(tenant) == (0, 0)


def test_reimport_updates_by_sku(tenant) -> None:
    import_catalog(tenant.id, CSV, "csv")
    rows = [{"sku": "SOCK", "name": "Crew Socks (3 pack)", "price": 1200, "stock": 9}]
    report = import_catalog(tenant.id, json.dumps({"items": rows}), "json")
    assert (report.created, report.updated) == (0, 1)
    with tenant_context(tenant.id):
        socks = CatalogItem.objects.get(sku="SOCK")
    assert (socks.name, socks.price, socks.stock) == ("Crew Socks (3 pack)", Decimal(1200), 9)


def test_same_skus_in_stranger_are_separate(tenant, stranger) -> None:
    f.item(stranger, "Their socks", 50, sku="SOCK")
    assert import_catalog(tenant.id, CSV, "csv").ok
    with tenant_context(stranger.id):
        assert CatalogItem.objects.get(sku="SOCK").name == "Their socks"


def test_variant_sku_of_another_item_is_a_row_error(tenant) -> None:
    import_catalog(tenant.id, CSV, "csv")
    rows = [{"sku": "NEW", "name": "New", "price": 10, "variants": [{"sku": "AM90-42-BLK"}]}]
    report = import_catalog(tenant.id, json.dumps(rows), "json")
    assert [e.field for e in report.errors] == ["variants.sku"]
    assert _count(tenant) == (2, 2)
