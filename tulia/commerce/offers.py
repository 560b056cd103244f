"""Which offers a customer may use, and applying a coupon code to an order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Literal
from uuid import UUID

from django.db.models import Count, Q
from django.utils import timezone

from tenants.accessors import tenant_scope
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.checkout import priced_lines
from tulia.commerce.errors import CouponRejected, OrderStateError
from tulia.commerce.fulfilment import retotal
from tulia.commerce.models import Coupon, Offer, OfferRedemption, Order, OrderStatus
from tulia.commerce.pricing import PricedLine, discount_for, in_window

# Why an offer does not apply, as a code the text catalog words ("error.coupon_rejected").
Rejection = Literal["not_running", "fully_used", "already_used", "not_qualifying", "unknown_code"]

# Once payment has started the amount asked of the customer must not change under it.
EDITABLE = (OrderStatus.DRAFT,)


@dataclass(frozen=True)
class OfferView:
    offer: Offer
    code: str | None
    discount: Decimal | None  # for the given order, when one was given
    rejection: Rejection | None  # why it does not apply (None when it does)


def _uses(
    tenant_id: UUID, offer_ids: list[int], customer_id: int, exclude_order: int | None
) -> dict[int, tuple[int, int]]:
    """Per offer, (overall, by this customer) uses, ignoring cancelled orders and the
    order itself: one grouped query however many offers are listed."""
    uses = OfferRedemption.objects.filter(tenant_id=tenant_id, offer_id__in=offer_ids).exclude(
        Q(order__status=OrderStatus.CANCELLED) | Q(order_id=exclude_order)
    )
    counted = uses.values("offer_id").annotate(
        overall=Count("id"), mine=Count("id", filter=Q(customer_id=customer_id))
    )
    return {row["offer_id"]: (row["overall"], row["mine"]) for row in counted}


def rejection_reason(
    offer: Offer,
    customer_id: int,
    lines: Sequence[PricedLine] | None,
    now: datetime,
    exclude_order: int | None = None,
    *,
    used: tuple[int, int] | None = None,
) -> Rejection | None:
    """Why `offer` does not apply (None when it does); `used` when already counted."""
    if not offer.is_active or not in_window(offer, now):
        return "not_running"
    if used is None:
        used = _uses(offer.tenant_id, [offer.pk], customer_id, exclude_order).get(offer.pk)
    overall, mine = used or (0, 0)
    if offer.usage_limit_total is not None and overall >= offer.usage_limit_total:
        return "fully_used"
    if offer.usage_limit_per_customer is not None and mine >= offer.usage_limit_per_customer:
        return "already_used"
    if lines is not None and discount_for(offer, lines) <= 0:
        return "not_qualifying"
    return None


def applicable_offers(
    tenant_id: UUID | str, customer_id: int, order_id: int | None = None
) -> list[OfferView]:
    """Advertised offers, each with its public code and, given an order, its discount."""
    now = timezone.now()
    with tenant_context(tenant_id) as tid:
        lines = None
        if order_id is not None:
            order = Order.objects.filter(tenant_id=tid, pk=order_id, customer_id=customer_id)
            if not order.exists():
                raise NotFound("order not found")
            lines = priced_lines(order.get())
        offers = Offer.objects.filter(tenant_id=tid, advertised=True, is_active=True)
        listed = list(offers.prefetch_related("coupons").order_by("id"))
        uses = _uses(tid, [offer.pk for offer in listed], customer_id, order_id)
        views = []
        for offer in listed:
            used = uses.get(offer.pk, (0, 0))
            reason = rejection_reason(offer, customer_id, lines, now, order_id, used=used)
            code = next((c.code for c in offer.coupons.all() if c.is_active), None)
            discount = discount_for(offer, lines) if lines is not None and not reason else None
            views.append(OfferView(offer, code, discount, reason))
        return views


def apply_coupon(tenant_id: UUID | str, order_id: int, code: str, customer_id: int) -> Order:
    """Apply `code` to the customer's order, replacing any earlier coupon on it.

    Every refusal comes before the first write, so the tool's open context is joined
    without a savepoint."""
    with tenant_scope(tenant_id) as tid:
        order = (
            Order.objects.select_for_update()
            .filter(tenant_id=tid, pk=order_id, customer_id=customer_id)
            .first()
        )
        if order is None:
            raise NotFound("order not found")
        if order.status not in EDITABLE:
            raise OrderStateError(f"order {order.reference} is {order.status}")
        coupon = _coupon(tid, code)
        # Lock the offer so two orders cannot both take its last use.
        offer = Offer.objects.select_for_update().get(pk=coupon.offer_id)
        lines = priced_lines(order)
        reason = rejection_reason(offer, customer_id, lines, timezone.now(), order.pk)
        if reason:
            raise CouponRejected(f"coupon {code!r}: {reason}", reason=reason)
        return _redeem(order, coupon, offer, discount_for(offer, lines))


def _coupon(tenant_id: UUID, code: str) -> Coupon:
    coupon = Coupon.objects.filter(
        tenant_id=tenant_id, code=code.strip().upper(), is_active=True
    ).first()
    if coupon is None:
        raise CouponRejected(f"unknown or inactive code {code!r}", reason="unknown_code")
    return coupon


def _redeem(order: Order, coupon: Coupon, offer: Offer, discount: Decimal) -> Order:
    OfferRedemption.objects.filter(tenant_id=order.tenant_id, order=order).delete()
    OfferRedemption.objects.create(
        tenant_id=order.tenant_id,
        offer=offer,
        coupon=coupon,
        order=order,
        customer_id=order.customer_id,
        amount=discount,
    )
    order.coupon = coupon
    order.discount_total = discount
    retotal(order)  # the discount may cross the free-delivery threshold
    order.save(update_fields=["coupon", "discount_total", "delivery_fee", "total", "updated_at"])
    return order
