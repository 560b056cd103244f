"""The owner's campaign notices on the console home: paused, waiting for the tier, spread
over days, recovered after a crash, finished. The same rows admin and the API show
(CampaignEvent), the last few days', newest first, each linking to its campaign."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import UUID

from django import template
from django.utils import timezone

from tenants.context import tenant_context
from tulia.campaigns.models import CampaignEvent

register = template.Library()
# What an owner must see without opening the campaign; "scheduled", "resumed" and
# "cancelled" are the owner's own moves and stay on the campaign's page.
NOTICE_KINDS = ("paused", "tier_wait", "spread", "recovered", "done")
SHOWN = 5
RECENT = timedelta(days=3)


@register.inclusion_tag("campaigns/notices.html")
def campaign_notices(tenant_id: UUID) -> dict[str, Any]:
    with tenant_context(tenant_id) as tid:
        notices = list(
            CampaignEvent.objects.filter(
                tenant_id=tid,
                kind__in=NOTICE_KINDS,
                created_at__gte=timezone.now() - RECENT,
            )
            .select_related("campaign")
            .order_by("-created_at", "-id")[:SHOWN]
        )
    return {"notices": notices}
