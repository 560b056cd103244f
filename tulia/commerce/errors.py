"""Domain errors of commerce; each carries a stable code the tool layer passes on.

The message is for logs and staff. What the customer reads is written from the code and
the facts by the text catalog ("error.<code>"), in the customer's language.
"""

from __future__ import annotations

from tulia.errors import DomainError


class CommerceError(DomainError):
    code = "commerce_error"


class OrderStateError(CommerceError):
    """The order's current status does not allow the requested change."""

    code = "invalid_order_state"


class PaymentConflict(OrderStateError):
    """A second, different payment for an order already paid: kept for review, not applied."""

    code = "payment_conflict"


class OutOfStock(CommerceError):
    """Facts: `item` (its name) and `available` (units in stock)."""

    code = "out_of_stock"


class InvalidOrderLine(CommerceError):
    """Facts: `reason` (quantity, needs_variant, empty)."""

    code = "invalid_order_line"


class CouponRejected(CommerceError):
    """Facts: `reason`, one of offers.REJECTIONS."""

    code = "coupon_rejected"


class UnknownDeliveryArea(CommerceError):
    """The area matches none of the shop's delivery zones (or the shop has no pickup)."""

    code = "unknown_delivery_area"
