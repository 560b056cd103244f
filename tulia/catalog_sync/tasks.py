"""Celery tasks of store sync: ids in, one domain call each, safe to run twice."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from tenants.context import operator_context
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import DeliveryStatus, StoreConnection, WebhookDelivery
from tulia.celery import app

# WooCommerce disables a webhook after repeated failed deliveries; the reconcile is the
# guarantee, so it runs whatever the webhooks do.
RECONCILE_EVERY_SECONDS = 6 * 3600
SWEEP_EVERY_SECONDS = 60
STUCK_AFTER = timedelta(minutes=2)


@shared_task(
    name="catalog_sync.import_catalog",
    acks_late=True,
    autoretry_for=(SyncError,),
    retry_backoff=30,
    max_retries=5,
)
def import_catalog(tenant_id: str, connection_id: int, run: int | None = None) -> int:
    from tulia.catalog_sync.sync import run_import

    try:
        return run_import(tenant_id, connection_id, run=run)
    except SyncError as exc:
        if not exc.retryable:
            return -1  # recorded on the connection for the owner; retrying cannot help
        raise


@shared_task(
    name="catalog_sync.apply_delivery",
    acks_late=True,
    autoretry_for=(SyncError,),
    retry_backoff=10,
    max_retries=5,
)
def apply_delivery(tenant_id: str, delivery_id: int) -> str:
    from tulia.catalog_sync.handlers import process_delivery

    return process_delivery(tenant_id, delivery_id)


@shared_task(name="catalog_sync.reconcile", acks_late=True)
def reconcile_connection(tenant_id: str, connection_id: int) -> int:
    from tulia.catalog_sync.sync import reconcile

    return reconcile(tenant_id, connection_id).repaired


@shared_task(name="catalog_sync.reconcile_all")
def reconcile_all() -> int:
    with operator_context("catalog sync: schedule the periodic reconcile"):
        rows = list(StoreConnection.objects.filter(is_active=True).values_list("tenant_id", "pk"))
    for tenant_id, connection_id in rows:
        reconcile_connection.delay(str(tenant_id), connection_id)
    return len(rows)


@shared_task(name="catalog_sync.sweep_deliveries")
def sweep_deliveries() -> int:
    """Deliveries stored but never processed (the broker was down) are enqueued again."""
    cutoff = timezone.now() - STUCK_AFTER
    with operator_context("catalog sync: re-enqueue stored webhook deliveries"):
        rows = list(
            WebhookDelivery.objects.filter(
                status=DeliveryStatus.RECEIVED, received_at__lt=cutoff
            ).values_list("tenant_id", "pk")[:500]
        )
    for tenant_id, delivery_id in rows:
        apply_delivery.delay(str(tenant_id), delivery_id)
    return len(rows)


app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "catalog-sync-reconcile": {
        "task": "catalog_sync.reconcile_all",
        "schedule": RECONCILE_EVERY_SECONDS,
    },
    "catalog-sync-sweep": {
        "task": "catalog_sync.sweep_deliveries",
        "schedule": SWEEP_EVERY_SECONDS,
    },
}


@shared_task(
    name="catalog_sync.push_order",
    acks_late=True,
    autoretry_for=(SyncError,),
    retry_backoff=15,
    retry_backoff_max=1800,
    max_retries=12,
)
def push_order(tenant_id: str, order_id: int) -> list[str]:
    from tulia.catalog_sync.push import push_paid_order

    try:
        return push_paid_order(tenant_id, order_id)
    except SyncError as exc:
        if not exc.retryable:
            return []  # queued as a conflict for the owner; sending again cannot help
        raise
