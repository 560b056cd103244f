"""Meta's messaging limit per sender, and the share of it kept for utility messages.

A sender may reach so many unique customers with templates (business-initiated
messages) in a rolling 24 hours: its tier. We count the customers our template sends
reached through the sender in the last 24 hours; a customer already reached costs
nothing more. Marketing stops at (100 - reserve)% of the tier, so "your order
shipped" always has room; utility may use the whole tier.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import QuerySet
from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.models import SenderLimit

ROLLING = timedelta(hours=24)


@dataclass(frozen=True)
class Usage:
    used: int  # unique customers reached with templates in the last 24 hours
    capacity: int | None  # None: unlimited
    marketing_capacity: int | None


def limit_for(tenant_id: UUID, sender_id: int, *, lock: bool = False) -> SenderLimit:
    """The sender's limit row, created at Meta's starting tier on first use."""
    with tenant_context(tenant_id) as tid:
        row, _ = SenderLimit.objects.get_or_create(tenant_id=tid, sender_id=sender_id)
        if lock:  # serialises concurrent decisions for one sender
            row = SenderLimit.objects.select_for_update().get(pk=row.pk)
        return row


def _reached(tenant_id: UUID, sender_id: int, now: datetime) -> QuerySet[OutboundMessage]:
    return (
        OutboundMessage.objects.filter(
            tenant_id=tenant_id,
            conversation__sender_id=sender_id,
            created_at__gte=now - ROLLING,
        )
        .exclude(content_sid="")
        .exclude(status=OutboundMessage.Status.NOT_SENT)
    )


def usage(limit: SenderLimit, now: datetime | None = None) -> Usage:
    moment = now or timezone.now()
    with tenant_context(limit.tenant_id) as tid:
        reached = _reached(tid, limit.sender_id, moment)
        used = reached.values("conversation__customer_id").distinct().count()
    capacity = limit.capacity
    marketing = (
        None if capacity is None else capacity * (100 - limit.utility_reserve_percent) // 100
    )
    return Usage(used=used, capacity=capacity, marketing_capacity=marketing)


def refusal(limit: SenderLimit, customer_id: int, category: str) -> str:
    """Why one more template to this customer would break the limit ("" when it fits)."""
    if limit.capacity is None:
        return ""
    now = timezone.now()
    with tenant_context(limit.tenant_id) as tid:
        if (
            _reached(tid, limit.sender_id, now)
            .filter(conversation__customer_id=customer_id)
            .exists()
        ):
            return ""
    current = usage(limit, now)
    ceiling = current.marketing_capacity if category == "marketing" else current.capacity
    if ceiling is not None and current.used + 1 > ceiling:
        kept = " (the rest is kept for utility messages)" if category == "marketing" else ""
        return f"the sender's messaging limit is reached: {current.used} of {ceiling}{kept}"
    return ""
