"""A shop's day at a glance: what needs a person now, and how the day is going.

Each card is one query (the order cards share one) under the shop's tenant context;
the home page shows them per shop (an operator sees every shop, a shop's staff their own).
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from uuid import UUID

from django.db.models import Count, Min, Q, Sum

from kb.models import KnowledgeGap
from payments.models import PaymentEvent
from tenants.context import tenant_context
from tenants.models import Tenant
from tulia.commerce.models import Order, OrderStatus
from tulia.conversations.models import OutboundMessage
from tulia.handoff.models import HandoffTicket, TicketStatus

TO_SHIP = (OrderStatus.CONFIRMED, OrderStatus.PACKED)
# Replies a person typed at the desk carry a "desk-" request id; the rest are the bot's.
DESK_REPLY_PREFIX = "desk-"


@dataclass(frozen=True)
class ShopToday:
    tenant_id: UUID
    shop: str
    waiting: int
    longest_wait: timedelta | None
    to_confirm: int
    to_ship: int
    paid_sales: Decimal
    paid_orders: int
    payments_to_review: int
    gaps_this_week: int
    bot_replies: int
    person_replies: int

    @property
    def bot_share(self) -> int | None:
        """Percent of today's replies the bot sent (None before the first reply)."""
        total = self.bot_replies + self.person_replies
        return round(100 * self.bot_replies / total) if total else None


def start_of_day(tenant: Tenant, now: datetime) -> datetime:
    local = now.astimezone(zoneinfo.ZoneInfo(tenant.timezone))
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def shop_today(tenant: Tenant, now: datetime) -> ShopToday:
    midnight = start_of_day(tenant, now)
    with tenant_context(tenant.pk) as tid:
        waiting = HandoffTicket.objects.filter(tenant_id=tid, status=TicketStatus.OPEN).aggregate(
            n=Count("pk"), first=Min("opened_at")
        )
        # One pass over the shop's orders answers the three order cards.
        paid_today = Q(paid_at__gte=midnight)
        orders = Order.objects.filter(tenant_id=tid).aggregate(
            to_confirm=Count("pk", filter=Q(status=OrderStatus.PAID)),
            to_ship=Count("pk", filter=Q(status__in=TO_SHIP)),
            paid_total=Sum("total", filter=paid_today),
            paid_n=Count("pk", filter=paid_today),
        )
        replies = OutboundMessage.objects.filter(tenant_id=tid, created_at__gte=midnight).aggregate(
            person=Count("pk", filter=Q(request_id__startswith=DESK_REPLY_PREFIX)),
            all=Count("pk"),
        )
        return ShopToday(
            tenant_id=tid,
            shop=tenant.name,
            waiting=waiting["n"],
            longest_wait=now - waiting["first"] if waiting["first"] else None,
            to_confirm=orders["to_confirm"],
            to_ship=orders["to_ship"],
            paid_sales=orders["paid_total"] or Decimal("0.00"),
            paid_orders=orders["paid_n"],
            payments_to_review=_payments_to_review(tid),
            gaps_this_week=KnowledgeGap.objects.filter(
                tenant_id=tid, last_asked_at__gte=now - timedelta(days=7)
            ).count(),
            bot_replies=replies["all"] - replies["person"],
            person_replies=replies["person"],
        )


def _payments_to_review(tenant_id: UUID) -> int:
    """What the reconciliation queue shows (payments admin, PaymentToReconcile)."""
    return PaymentEvent.objects.filter(
        tenant_id=tenant_id, needs_review=True, reviewed_at__isnull=True
    ).count()
