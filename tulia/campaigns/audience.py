"""Who a campaign reaches: segments a shop understands, opted-in customers only.

A segment is a small JSON object (validated here, stored on the campaign):

    {"tags": ["vip"], "languages": ["sw"], "ordered_within_days": 90,
     "no_order_for_days": 30, "min_spent": 5000, "max_spent": null,
     "bought_items": [12], "bought_categories": [3]}

Every field narrows the audience; an empty segment is every opted-in customer. The
audience is a queryset, never a list: previews count it in the database and the
recipient rows are written from it in chunks (`customer_ids`), so a shop of a million
customers costs the same memory as one of a hundred.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from uuid import UUID

from django.db.models import DecimalField, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from tenants.context import tenant_context
from tenants.models import Customer
from tulia.commerce.models import Order, OrderLine
from tulia.commerce.models.orders import OrderStatus

# An order counts as bought once paid (a draft or an unpaid order is not a purchase).
BOUGHT = (
    OrderStatus.PAID, OrderStatus.CONFIRMED, OrderStatus.PACKED,
    OrderStatus.SHIPPED, OrderStatus.DELIVERED,
)  # fmt: skip
CHUNK = 2000


class Segment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tags: list[str] = Field(default_factory=list, max_length=20)
    languages: list[str] = Field(default_factory=list, max_length=3)
    ordered_within_days: int | None = Field(default=None, ge=1, le=3650)
    no_order_for_days: int | None = Field(default=None, ge=1, le=3650)
    min_spent: Decimal | None = Field(default=None, ge=0)
    max_spent: Decimal | None = Field(default=None, ge=0)
    bought_items: list[int] = Field(default_factory=list, max_length=100)
    bought_categories: list[int] = Field(default_factory=list, max_length=100)


def parse(raw: object) -> Segment:
    """The segment from stored JSON (a pydantic ValidationError when it is not one)."""
    return Segment.model_validate(raw or {})


def _bought(tid: UUID) -> QuerySet[Order]:
    return Order.objects.filter(tenant_id=tid, customer_id=OuterRef("pk"), status__in=BOUGHT)


def customers(tenant_id: UUID | str, segment: Segment) -> QuerySet[Customer]:
    """The segment's opted-in customers (call within the tenant's context)."""
    tid = UUID(str(tenant_id))
    rows = Customer.objects.filter(
        tenant_id=tid, marketing_opt_in=True, consent_withdrawn_at__isnull=True
    )
    if segment.tags:
        rows = rows.filter(tags__overlap=segment.tags)
    if segment.languages:
        rows = rows.filter(language_preference__in=segment.languages)
    now = timezone.now()
    if segment.ordered_within_days is not None:
        since = now - timedelta(days=segment.ordered_within_days)
        rows = rows.filter(Exists(_bought(tid).filter(created_at__gte=since)))
    if segment.no_order_for_days is not None:
        since = now - timedelta(days=segment.no_order_for_days)
        rows = rows.exclude(Exists(_bought(tid).filter(created_at__gte=since)))
    if segment.min_spent is not None or segment.max_spent is not None:
        spent = (
            _bought(tid)
            .order_by()
            .values("customer_id")
            .annotate(total=Sum("total"))
            .values("total")
        )
        money: DecimalField[Decimal, Decimal] = DecimalField(max_digits=14, decimal_places=2)
        rows = rows.annotate(spent=Coalesce(Subquery(spent, output_field=money), Decimal(0)))
        if segment.min_spent is not None:
            rows = rows.filter(spent__gte=segment.min_spent)
        if segment.max_spent is not None:
            rows = rows.filter(spent__lte=segment.max_spent)
    if segment.bought_items or segment.bought_categories:
        wanted = Q(item_id__in=segment.bought_items) | Q(
            item__category_id__in=segment.bought_categories
        )
        lines = OrderLine.objects.filter(
            wanted, tenant_id=tid, order__customer_id=OuterRef("pk"), order__status__in=BOUGHT
        )
        rows = rows.filter(Exists(lines))
    return rows


def customer_ids(tenant_id: UUID | str, segment: Segment) -> Iterator[list[int]]:
    """The audience's customer ids in chunks, streamed by keyset (never all in memory)."""
    last = 0
    while True:
        with tenant_context(tenant_id):
            chunk = list(
                customers(tenant_id, segment)
                .filter(pk__gt=last)
                .order_by("pk")
                .values_list("pk", flat=True)[:CHUNK]
            )
        if not chunk:
            return
        yield chunk
        last = chunk[-1]


@dataclass(frozen=True)
class Preview:
    recipients: int
    cost_kes: Decimal
    price_kes: Decimal


def preview(tenant_id: UUID | str, segment: Segment, price: Decimal) -> Preview:
    """How many customers the segment reaches now and what that costs in KES."""
    with tenant_context(tenant_id):
        count = customers(tenant_id, segment).count()
    return Preview(
        recipients=count, cost_kes=(price * count).quantize(Decimal("0.01")), price_kes=price
    )
