"""Gathering the plain facts the pure eligibility function decides on.

Delivery comes from `Order.delivered_at` (set by tulia.commerce.lifecycle), else the
time of the order's "delivered" event; item flags from the catalog item (`is_returnable`,
`is_final_sale` or its attributes) and the tenant's policy lists.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from tenants.models import Customer
from tulia.commerce.models import Order, OrderStatus, OrderStatusEvent
from tulia.returns import eligibility as el
from tulia.returns.models import ReturnPolicy, ReturnRequest

FRAUD_TAG = "fraud"


def policy_for(tenant_id: UUID, timezone: str) -> el.Policy:
    stored = ReturnPolicy.objects.filter(tenant_id=tenant_id).first()
    if stored is None:
        return el.Policy(version="default", timezone=timezone)
    return el.Policy(
        version=str(stored.version),
        return_days=stored.return_days,
        refund_days=stored.refund_days,
        categories={
            slug: el.CategoryRule(
                return_days=rule.get("return_days"),
                refund_days=rule.get("refund_days"),
                returnable=bool(rule.get("returnable", True)),
            )
            for slug, rule in (stored.category_rules or {}).items()
        },
        damage_words=tuple(stored.damage_words) or el.DEFAULT_DAMAGE_WORDS,
        max_returns_30d=stored.max_returns_30d,
        timezone=timezone,
        exchange_days=stored.exchange_days,
    )


def delivered_at(order: Order) -> datetime | None:
    explicit: datetime | None = getattr(order, "delivered_at", None)
    if explicit is not None:
        return explicit
    return (
        OrderStatusEvent.objects.filter(
            tenant_id=order.tenant_id, order=order, to_status=OrderStatus.DELIVERED
        )
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )


def _flag(item: Any, name: str, default: bool) -> bool:
    value = getattr(item, name, None)
    if value is None:
        value = (getattr(item, "attributes", None) or {}).get(name.removeprefix("is_"), default)
    return bool(value)


def order_items(order: Order, stored: ReturnPolicy | None, skus: list[str]) -> list[el.Item]:
    """The requested lines as eligibility items (all lines when no SKU is named)."""
    lines = order.lines.select_related("item__category").order_by("id")
    blocked = set(stored.non_returnable_skus) if stored else set()
    final = set(stored.final_sale_skus) if stored else set()
    return [
        el.Item(
            sku=line.sku,
            category=line.item.category.slug if line.item.category else "",
            returnable=_flag(line.item, "is_returnable", True) and line.sku not in blocked,
            final_sale=_flag(line.item, "is_final_sale", False) or line.sku in final,
            already_returned=getattr(line, "returned_at", None) is not None,
        )
        for line in lines
        if not skus or line.sku in skus
    ]


def recent_returns(tenant_id: UUID, customer_id: int, order_id: int, now: datetime) -> int:
    return (
        ReturnRequest.objects.filter(
            tenant_id=tenant_id, customer_id=customer_id, created_at__gte=now - timedelta(days=30)
        )
        .exclude(order_id=order_id)
        .values("order_id")
        .distinct()
        .count()
    )


def is_flagged(customer: Customer) -> bool:
    return FRAUD_TAG in (customer.tags or [])
