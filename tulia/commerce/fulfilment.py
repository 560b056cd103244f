"""Delivery or pickup for an order at checkout: the zone, its fee, and the new total.

The fee comes from the shop's zones (FulfilmentSettings), matched on the area the
customer names; orders at or above `free_delivery_from` (after offers) ship free.
Only an order not yet paid can change how it is handed over, and the total always
stays subtotal - discount + delivery fee (a database constraint holds it).
`retotal` is the one place that sum is made: choosing the area and applying a coupon
afterwards both go through it, so the free-delivery threshold is always judged on
the subtotal after the discount the order has now.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from uuid import UUID

from django.db import transaction

from tenants.accessors import tenant_scope
from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.commerce.errors import OrderStateError, UnknownDeliveryArea
from tulia.commerce.models import FulfilmentSettings, Order, OrderStatus
from tulia.commerce.models.money import ZERO
from tulia.commerce.models.orders import Fulfilment
from tulia.commerce.orders import locked_order
from tulia.normalise import find_phrase

UNPAID = (OrderStatus.DRAFT, OrderStatus.PENDING_PAYMENT)


@dataclass(frozen=True)
class Zone:
    name: str
    fee: Decimal
    areas: tuple[str, ...]
    courier: bool = False  # a courier parcel: free delivery never applies


@dataclass(frozen=True)
class Options:
    zones: tuple[Zone, ...]
    free_delivery_from: Decimal | None
    pickup_location: str
    pickup_hours: str

    @property
    def offered(self) -> bool:
        return bool(self.zones or self.pickup_location)


NONE = Options(zones=(), free_delivery_from=None, pickup_location="", pickup_hours="")


def options_for(tenant_id: UUID | str) -> Options:
    # A read: joins the caller's open context of this tenant (a tool's) for free.
    with tenant_scope(tenant_id) as tid:
        stored = FulfilmentSettings.objects.filter(tenant_id=tid).first()
    if stored is None:
        return NONE
    return Options(
        zones=tuple(
            Zone(z["name"], Decimal(z["fee"]), tuple(z.get("areas", [])), bool(z.get("courier")))
            for z in stored.delivery_zones or []
        ),
        free_delivery_from=stored.free_delivery_from,
        pickup_location=stored.pickup_location,
        pickup_hours=stored.pickup_hours,
    )


def zone_for(options: Options, area: str) -> Zone | None:
    """The zone whose name or one of whose areas the text names (whole words)."""
    for zone in options.zones:
        if find_phrase(area, (zone.name, *zone.areas)):
            return zone
    return None


def set_fulfilment(
    tenant_id: UUID | str, order_id: int, customer_id: int, method: str, area: str = ""
) -> Order:
    """Delivery to `area` (the zone's fee) or pickup (no fee) for an unpaid order."""
    options = options_for(tenant_id)
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        order = locked_order(tid, order_id)
        if order.customer_id != customer_id:
            raise NotFound("order not found")  # another customer's order looks absent
        if order.status not in UNPAID:
            raise OrderStateError(f"order {order.reference} is {order.status}")
        if method == Fulfilment.PICKUP:
            if not options.pickup_location:
                raise UnknownDeliveryArea("this shop has no pickup")
            _apply(order, options, Fulfilment.PICKUP, "", "")
        else:
            zone = zone_for(options, area)
            if zone is None:
                raise UnknownDeliveryArea(f"no delivery zone matches {area!r}")
            _apply(order, options, Fulfilment.DELIVERY, zone.name, area)
        return order


def retotal(order: Order, options: Options | None = None) -> Order:
    """Set the order's delivery fee and total from what it holds now (not saved).

    The fee is the chosen zone's, free when the subtotal after the discount reaches
    the shop's threshold (never for a courier zone). A zone the shop has since
    removed keeps the fee quoted when it was chosen."""
    if order.fulfilment == Fulfilment.DELIVERY:
        options = options if options is not None else options_for(order.tenant_id)
        zone = next((z for z in options.zones if z.name == order.delivery_area), None)
        if zone is not None:
            order.delivery_fee = _fee(options, order, zone)
    else:
        order.delivery_fee = ZERO
    order.total = order.subtotal - order.discount_total + order.delivery_fee
    return order


def _fee(options: Options, order: Order, zone: Zone) -> Decimal:
    spent = order.subtotal - order.discount_total
    if zone.courier:
        return zone.fee
    if options.free_delivery_from is not None and spent >= options.free_delivery_from:
        return ZERO
    return zone.fee


def _apply(order: Order, options: Options, method: str, zone: str, address: str) -> None:
    order.fulfilment = method
    order.delivery_area = zone[:120]
    order.delivery_address = address.strip()[:300]
    retotal(order, options)
    order.save(
        update_fields=[
            "fulfilment", "delivery_area", "delivery_address", "delivery_fee", "total",
            "updated_at",
        ]
    )  # fmt: skip
