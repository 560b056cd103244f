"""Discount rules: whether an offer applies to a basket, and how much it takes off.

Pure functions over priced lines, so totals are easy to check by property tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from tulia.commerce.models import Offer
from tulia.commerce.models.money import ZERO, kes, whole_shillings_down


@dataclass(frozen=True)
class PricedLine:
    item_id: int
    category_id: int | None
    unit_price: Decimal
    quantity: int

    @property
    def total(self) -> Decimal:
        return kes(self.unit_price * self.quantity)


def subtotal(lines: Sequence[PricedLine]) -> Decimal:
    return kes(sum((line.total for line in lines), ZERO))


def in_window(offer: Offer, now: datetime) -> bool:
    started = offer.starts_at is None or offer.starts_at <= now
    return started and (offer.ends_at is None or now < offer.ends_at)


def eligible_amount(offer: Offer, lines: Sequence[PricedLine]) -> Decimal:
    """The part of the basket the offer's scope covers."""
    if offer.scope == Offer.Scope.CATEGORY:
        lines = [line for line in lines if line.category_id == offer.category_id]
    elif offer.scope == Offer.Scope.ITEM:
        lines = [line for line in lines if line.item_id == offer.item_id]
    return subtotal(lines)


def discount_for(offer: Offer, lines: Sequence[PricedLine]) -> Decimal:
    """Whole shillings off, never more than the covered amount; zero below min spend."""
    if subtotal(lines) < offer.min_spend:
        return ZERO
    covered = eligible_amount(offer, lines)
    if offer.kind == Offer.Kind.PERCENTAGE:
        raw = covered * offer.value / Decimal(100)
    else:
        raw = offer.value
    return whole_shillings_down(min(raw, covered))
