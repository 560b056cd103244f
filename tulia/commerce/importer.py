"""Catalog bulk import: every row validated first; all rows written or none.

Items and variants are matched by sku (update if present, create if not); categories
by name. Indexing (search text now, embeddings in a Celery task) follows in bulk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from django.db import transaction
from django.utils.text import slugify

from tenants.context import tenant_context
from tulia.commerce.import_rows import FileError, ItemRow, RowError, parse, validate
from tulia.commerce.indexing import schedule_indexing
from tulia.commerce.models import CatalogItem, Category, Variant

ITEM_FIELDS = [
    "name", "price", "stock", "brand", "description", "aliases",
    "image_url", "link_url", "is_active", "category",
]  # fmt: skip


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    variants: int = 0
    errors: list[RowError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def import_catalog(tenant_id: UUID | str, text: str, fmt: str) -> ImportReport:
    """Import a CSV or JSON catalog file for the tenant; see ImportReport.errors."""
    if fmt not in ("csv", "json"):
        raise FileError("format must be csv or json")
    rows, errors = validate(parse(text, fmt))
    if errors:
        return ImportReport(errors=errors)
    if not rows:
        return ImportReport(errors=[RowError(row=0, field="file", message="no rows")])
    with tenant_context(tenant_id) as tid, transaction.atomic():
        report, item_ids = _write(tid, rows)
        if report.ok:
            schedule_indexing(tid, item_ids)
        else:
            transaction.set_rollback(True)
        return report


def _categories(tenant_id: UUID, rows: list[ItemRow]) -> dict[str, Category]:
    found: dict[str, Category] = {}
    for name in sorted({row.category for row in rows if row.category}):
        found[name], _ = Category.objects.get_or_create(
            tenant_id=tenant_id, slug=slugify(name)[:80] or "category", defaults={"name": name}
        )
    return found


def _write(tenant_id: UUID, rows: list[ItemRow]) -> tuple[ImportReport, list[int]]:
    categories = _categories(tenant_id, rows)
    skus = [row.sku for row in rows]
    existing = {
        item.sku: item for item in CatalogItem.objects.filter(tenant_id=tenant_id, sku__in=skus)
    }
    report = ImportReport()
    items: list[CatalogItem] = []
    for row in rows:
        item = existing.get(row.sku) or CatalogItem(tenant_id=tenant_id, sku=row.sku)
        report.created += item.pk is None
        report.updated += item.pk is not None
        _fill(item, row, categories.get(row.category))
        items.append(item)
    CatalogItem.objects.bulk_create([i for i in items if i.pk is None], batch_size=500)
    CatalogItem.objects.bulk_update([i for i in items if i.pk], ITEM_FIELDS, batch_size=500)
    report.errors, report.variants = _write_variants(tenant_id, rows, items)
    return report, [item.pk for item in items]


def _fill(item: CatalogItem, row: ItemRow, category: Category | None) -> None:
    for name in ITEM_FIELDS:
        if name != "category":
            setattr(item, name, getattr(row, name))
    item.category = category


def _write_variants(
    tenant_id: UUID, rows: list[ItemRow], items: list[CatalogItem]
) -> tuple[list[RowError], int]:
    skus = [variant.sku for row in rows for variant in row.variants]
    existing = {v.sku: v for v in Variant.objects.filter(tenant_id=tenant_id, sku__in=skus)}
    errors, variants = [], []
    for number, (row, item) in enumerate(zip(rows, items, strict=True), start=1):
        for spec in row.variants:
            variant = existing.get(spec.sku) or Variant(tenant_id=tenant_id, sku=spec.sku)
            if variant.pk and variant.item_id != item.pk:
                message = f"variant sku {spec.sku} belongs to another item"
                errors.append(RowError(row=number, field="variants.sku", message=message))
            variant.item = item
            variant.attributes, variant.price, variant.stock = (
                spec.attributes,
                spec.price,
                spec.stock,
            )
            variants.append(variant)
    if not errors:
        Variant.objects.bulk_create([v for v in variants if v.pk is None], batch_size=500)
        fields = ["attributes", "price", "stock"]
        Variant.objects.bulk_update([v for v in variants if v.pk], fields, batch_size=500)
    return errors, len(variants)
