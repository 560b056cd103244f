"""Shop time: a shop's messaging settings and its quiet hours, in its own timezone."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from uuid import UUID
from zoneinfo import ZoneInfo

from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tulia.campaigns.models import MessagingSettings


def messaging_settings(tenant_id: UUID | str) -> MessagingSettings:
    """The shop's settings row, created with the defaults on first use."""
    with tenant_context(tenant_id) as tid:
        row, _ = MessagingSettings.objects.get_or_create(tenant_id=tid)
        return row


def shop_zone(tenant_id: UUID | str) -> ZoneInfo:
    return ZoneInfo(get_tenant(tenant_id).timezone)


def _quiet(moment: time, start: time, end: time) -> bool:
    if start == end:
        return False  # no quiet hours
    if start < end:
        return start <= moment < end
    return moment >= start or moment < end  # wraps past midnight (21:00 → 08:00)


def quiet_ends(
    tenant_id: UUID | str, now: datetime | None = None, settings: MessagingSettings | None = None
) -> datetime | None:
    """When the shop's quiet hours end if `now` is inside them, else None."""
    rules = settings or messaging_settings(tenant_id)
    local = (now or timezone.now()).astimezone(shop_zone(tenant_id))
    if not _quiet(local.time(), rules.quiet_from, rules.quiet_until):
        return None
    end = local.replace(
        hour=rules.quiet_until.hour, minute=rules.quiet_until.minute, second=0, microsecond=0
    )
    if end <= local:
        end += timedelta(days=1)
    return end
