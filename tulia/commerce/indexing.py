"""Keeping items searchable: their search text (at once) and embeddings (in bulk, async)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from uuid import UUID

from django.db import transaction

from tenants.context import tenant_context
from tulia.commerce.models import CatalogItem, Variant
from tulia.embeddings import get_embedder
from tulia.normalise import fold

EMBED_BATCH = 256


def item_text(item: CatalogItem, variant_attributes: Iterable[dict[str, object]] = ()) -> str:
    """Everything a customer might call the item, in one normalised line."""
    parts: list[str] = [item.name, item.brand, *item.aliases]
    if item.category_id and item.category:
        parts.append(item.category.name)
    parts.extend(str(value) for value in item.attributes.values())
    values = {str(value) for attrs in variant_attributes for value in attrs.values()}
    parts.extend(sorted(values))
    return fold(" ".join(part for part in parts if part))


def _variants_by_item(tenant_id: UUID, item_ids: Sequence[int]) -> dict[int, list[Variant]]:
    found: dict[int, list[Variant]] = {}
    for variant in Variant.objects.filter(
        tenant_id=tenant_id, item_id__in=item_ids, is_active=True
    ):
        found.setdefault(variant.item_id, []).append(variant)
    return found


def refresh_search_text(tenant_id: UUID | str, item_ids: Sequence[int]) -> None:
    """Recompute search text and the in-stock flag; a changed text needs a new embedding."""
    with tenant_context(tenant_id) as tid:
        items = list(
            CatalogItem.objects.filter(tenant_id=tid, pk__in=item_ids).select_related("category")
        )
        variants = _variants_by_item(tid, item_ids)
        for item in items:
            mine = variants.get(item.pk, [])
            text = item_text(item, [variant.attributes for variant in mine])
            if text != item.search_text:
                item.search_text, item.embedding_model = text, ""
            item.in_stock = any(v.is_available for v in mine) if mine else item.is_available
        fields = ["search_text", "embedding_model", "in_stock"]
        CatalogItem.objects.bulk_update(items, fields, batch_size=500)


def embed_items(tenant_id: UUID | str, item_ids: Sequence[int]) -> int:
    """Embed the items' search text in batches; safe to run twice. Returns items embedded."""
    embedder = get_embedder()
    done = 0
    for start in range(0, len(item_ids), EMBED_BATCH):
        batch = item_ids[start : start + EMBED_BATCH]
        with tenant_context(tenant_id) as tid:
            items = list(CatalogItem.objects.filter(tenant_id=tid, pk__in=batch))
            vectors = embedder.embed([item.search_text or item.name for item in items])
            for item, vector in zip(items, vectors, strict=True):
                item.embedding = vector
                item.embedding_model = embedder.name
            CatalogItem.objects.bulk_update(items, ["embedding", "embedding_model"])
        done += len(items)
    return done


def schedule_indexing(tenant_id: UUID | str, item_ids: Sequence[int]) -> None:
    """Refresh text now; embed after commit in a Celery task (off the request path)."""
    if not item_ids:
        return
    refresh_search_text(tenant_id, item_ids)
    from tulia.commerce.tasks import embed_catalog_items

    ids = list(item_ids)
    transaction.on_commit(lambda: embed_catalog_items.delay(str(tenant_id), ids))
