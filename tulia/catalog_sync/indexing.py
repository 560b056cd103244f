"""Keeping synced items searchable without re-embedding what did not change.

Most store webhooks are stock and price: the search text (and so the embedding) is the
same as before. The search text and in-stock flag are refreshed at once; only items whose
text changed (commerce clears their `embedding_model` then) or that were never embedded
go to the embedding task.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from django.db import transaction

from tenants.context import tenant_context
from tulia.commerce.indexing import refresh_search_text
from tulia.commerce.models import CatalogItem


def reindex(tenant_id: UUID | str, item_ids: Sequence[int]) -> None:
    if not item_ids:
        return
    refresh_search_text(tenant_id, item_ids)
    with tenant_context(tenant_id) as tid:
        stale = list(
            CatalogItem.objects.filter(
                tenant_id=tid, pk__in=item_ids, embedding_model=""
            ).values_list("pk", flat=True)
        )
    if not stale:
        return
    from tulia.commerce.tasks import embed_catalog_items

    transaction.on_commit(lambda: embed_catalog_items.delay(str(tenant_id), stale))
