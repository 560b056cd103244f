"""Celery tasks of the catalog: ids in, idempotent, tenant context set by the wrapper."""

from __future__ import annotations

from celery import shared_task

from tenants.tasking import in_tenant_context
from tulia.commerce.indexing import embed_items


@shared_task(acks_late=True, max_retries=3, default_retry_delay=30)
@in_tenant_context
def embed_catalog_items(tenant_id: str, item_ids: list[int]) -> int:
    return embed_items(tenant_id, item_ids)
