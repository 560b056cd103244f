"""Beat jobs of conversations: the daily retention pass, fanned out one task per shop."""

from __future__ import annotations

from tenants.models import Tenant
from tulia.celery import app
from tulia.conversations.retention import apply_retention

RETENTION_EVERY_SECONDS = 24 * 3600.0


@app.task(name="conversations.retention_all", acks_late=True)
def retention_all() -> int:
    tenant_ids = list(Tenant.objects.values_list("pk", flat=True))
    for tenant_id in tenant_ids:
        retention_for_tenant.delay(str(tenant_id))
    return len(tenant_ids)


@app.task(name="conversations.retention_for_tenant", acks_late=True)
def retention_for_tenant(tenant_id: str) -> dict[str, int]:
    report = apply_retention(tenant_id)
    return {
        "inbound": report.inbound,
        "outbound": report.outbound,
        "conversations": report.conversations,
    }


app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "conversations-retention": {
        "task": "conversations.retention_all",
        "schedule": RETENTION_EVERY_SECONDS,
    },
}
