"""Per-source counters: which chats, broadcasts and links bring visits, taps and orders.

One row per tenant, day and source, bumped with a single INSERT … ON CONFLICT, so
counting costs one round trip and two visits at once never lose a count. A day is the
shop's own calendar day (its tenant timezone), not the server's: a Lagos shop's
11 pm visit belongs to that evening, not to Nairobi's next morning.

Orders are not counted here: an order remembers its own source (`Order.source`, from
the code in the page's WhatsApp message), and `by_source` reads both for the admin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.db import connection
from django.db.models import Count, Q, Sum
from django.utils import timezone

from tenants.accessors import tenant_scope
from tenants.models import Tenant
from tulia.commerce.models import Order, OrderStatus
from tulia.storefront.codes import DIRECT
from tulia.storefront.models import SourceVisits

__all__ = ["DIRECT", "SourceFigures", "by_source", "count", "shop_day", "source_tag"]

# Tags come from our own links (src=chat, a broadcast's name); anything else is "other".
_TAG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_COLUMNS = {"visits", "order_taps"}
STATS_DAYS = 30


def source_tag(raw: str | None) -> str:
    if not raw:
        return DIRECT
    tag = raw.strip().lower()
    return tag if _TAG.match(tag) else "other"


def shop_day(tenant: Tenant, at: datetime | None = None) -> date:
    """The shop's calendar day at `at` (now when not given)."""
    return (at or timezone.now()).astimezone(ZoneInfo(tenant.timezone)).date()


def count(tenant: Tenant, source: str, column: str, at: datetime | None = None) -> None:
    if column not in _COLUMNS:
        raise ValueError(f"not a counter: {column}")
    table = SourceVisits._meta.db_table
    sql = (
        f"INSERT INTO {table} (tenant_id, day, source, visits, order_taps) "  # noqa: S608 - fixed names
        f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tenant_id, day, source) "
        f"DO UPDATE SET {column} = {table}.{column} + 1"
    )
    visits, taps = (1, 0) if column == "visits" else (0, 1)
    day = shop_day(tenant, at)
    with tenant_scope(tenant.id) as tid, connection.cursor() as cursor:
        cursor.execute(sql, [str(tid), day, source_tag(source), visits, taps])


@dataclass(frozen=True)
class SourceFigures:
    source: str
    visits: int = 0
    order_taps: int = 0
    orders: int = 0  # orders started from the page's code, whatever became of them
    paid_orders: int = 0
    revenue: Decimal = Decimal(0)  # totals of the paid ones, cancelled ones left out


def by_source(
    tenant: Tenant, days: int = STATS_DAYS, at: datetime | None = None
) -> list[SourceFigures]:
    """Per source over the shop's last `days` days (today included), busiest first."""
    first = shop_day(tenant, at) - timedelta(days=days - 1)
    since = datetime.combine(first, time.min, tzinfo=ZoneInfo(tenant.timezone))
    with tenant_scope(tenant.id) as tid:
        counted = (
            SourceVisits.objects.filter(tenant_id=tid, day__gte=first)
            .values("source")
            .annotate(visits=Sum("visits"), order_taps=Sum("order_taps"))
        )
        paid = Q(paid_at__isnull=False) & ~Q(status=OrderStatus.CANCELLED)
        ordered = (
            Order.objects.filter(tenant_id=tid, created_at__gte=since)
            .exclude(source="")
            .values("source")
            .annotate(orders=Count("id"), paid_orders=Count("id", filter=paid),
                      revenue=Sum("total", filter=paid))
        )  # fmt: skip
        rows: dict[str, dict[str, object]] = {}
        for row in [*counted, *ordered]:
            rows.setdefault(str(row["source"]), {}).update(
                {k: v for k, v in row.items() if k != "source" and v is not None}
            )
    figures = [SourceFigures(source, **values) for source, values in rows.items()]  # type: ignore[arg-type]
    return sorted(figures, key=_busiest_first)


def _busiest_first(f: SourceFigures) -> tuple[Decimal, int, int, int, str]:
    return (-f.revenue, -f.paid_orders, -f.orders, -f.visits, f.source)
