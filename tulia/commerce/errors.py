"""Domain errors of commerce; each carries a stable code the tool layer passes on."""

from __future__ import annotations


class CommerceError(Exception):
    code = "commerce_error"


class OrderStateError(CommerceError):
    """The order's current status does not allow the requested change."""

    code = "invalid_order_state"


class PaymentConflict(OrderStateError):
    """A second, different payment for an order already paid: kept for review, not applied."""

    code = "payment_conflict"


class OutOfStock(CommerceError):
    code = "out_of_stock"


class InvalidOrderLine(CommerceError):
    code = "invalid_order_line"


class CouponRejected(CommerceError):
    code = "coupon_rejected"
