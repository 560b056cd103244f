"""Orders, their lines (price snapshots) and an append-only status history."""

from __future__ import annotations

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import Customer, TenantOwnedModel
from tulia.commerce.models.catalog import CatalogItem, Variant
from tulia.commerce.models.money import SHILLING, ZERO, money_field

# M-Pesa's AccountReference takes at most 12 characters; we keep to letters, digits, dash.
reference_validator = RegexValidator(r"^[A-Z0-9-]{4,12}$", "4-12 of A-Z, 0-9 and '-'")


class OrderStatus(models.TextChoices):
    DRAFT = "draft"
    PENDING_PAYMENT = "pending_payment"
    PAID = "paid"
    CONFIRMED = "confirmed"
    PACKED = "packed"
    SHIPPED = "shipped"
    DELIVERED = "delivered"  # was "fulfilled" before the lifecycle (migration 0005)
    CANCELLED = "cancelled"


class Fulfilment(models.TextChoices):
    DELIVERY = "delivery"
    PICKUP = "pickup"


class Order(TenantOwnedModel):
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="+")
    reference = models.CharField(
        max_length=12, validators=[reference_validator], verbose_name=_("reference")
    )
    status = models.CharField(
        max_length=16,
        choices=OrderStatus.choices,
        default=OrderStatus.DRAFT,
        verbose_name=_("status"),
    )
    subtotal = money_field(default=ZERO)
    discount_total = money_field(default=ZERO)
    total = money_field(default=ZERO)
    currency = models.CharField(max_length=3, default="KES", editable=False)
    coupon = models.ForeignKey(
        "commerce.Coupon", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payment_reference = models.CharField(
        max_length=64, blank=True, verbose_name=_("payment reference")
    )
    paid_at = models.DateTimeField(null=True, blank=True, verbose_name=_("paid at"))
    # Set by the lifecycle (tulia.commerce.lifecycle): the rider or courier note given
    # when shipped, the moment of delivery (a return window starts there), and whether
    # a cancelled order had been paid and so is owed a refund (refunds: issue 17 §4).
    tracking_note = models.CharField(max_length=200, blank=True, verbose_name=_("tracking note"))
    delivered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("delivered at"))
    refund_due = models.BooleanField(default=False, verbose_name=_("refund due"))
    # How the goods reach the customer, chosen at checkout ("" when the shop has no
    # delivery settings); the zone's fee is part of the total.
    fulfilment = models.CharField(
        max_length=8, choices=Fulfilment.choices, blank=True, verbose_name=_("fulfilment")
    )
    delivery_area = models.CharField(max_length=120, blank=True, verbose_name=_("delivery area"))
    delivery_address = models.CharField(
        max_length=300, blank=True, verbose_name=_("delivery address")
    )
    delivery_fee = money_field(default=ZERO, verbose_name=_("delivery fee"))
    conversation_id = models.BigIntegerField(null=True, blank=True)
    # Where the customer came from when the order began on the shop page (its code's
    # source tag: "chat", "qr", a broadcast's tag, "direct"); empty for chat-only orders.
    source = models.CharField(max_length=40, blank=True, default="", verbose_name=_("source"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "reference"], name="order_unique_reference"),
            models.CheckConstraint(
                condition=models.Q(
                    total=models.F("subtotal")
                    - models.F("discount_total")
                    + models.F("delivery_fee")
                ),
                name="order_total_is_subtotal_minus_discount_plus_delivery",
            ),
            models.CheckConstraint(
                condition=models.Q(delivery_fee__gte=0), name="order_delivery_fee_gte_0"
            ),
            models.CheckConstraint(condition=models.Q(total__gte=0), name="order_total_gte_0"),
        ]
        indexes = [models.Index(fields=["tenant", "customer", "-created_at"], name="order_recent")]

    def __str__(self) -> str:
        return self.reference

    def amount_whole_kes(self) -> int:
        """The total as whole shillings for M-Pesa. Prices are whole, so this is exact."""
        if self.total != self.total.quantize(SHILLING):
            raise ValueError(f"order {self.reference} total {self.total} is not whole shillings")
        return int(self.total)


class OrderLine(TenantOwnedModel):
    """One item (or variant) in an order, priced from the catalog at the time."""

    order = models.ForeignKey(
        Order, on_delete=models.CASCADE, related_name="lines", verbose_name=_("order")
    )
    item = models.ForeignKey(
        CatalogItem, on_delete=models.PROTECT, related_name="+", verbose_name=_("item")
    )
    variant = models.ForeignKey(
        Variant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    sku = models.CharField(max_length=64, verbose_name=_("SKU"))
    unit_price = money_field()
    quantity = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    line_total = money_field()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(quantity__gte=1), name="line_quantity_gte_1"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.name}"


class OrderStatusEvent(TenantOwnedModel):
    """Append-only: one row per status change, with who/what caused it."""

    order = models.ForeignKey(
        Order, on_delete=models.CASCADE, related_name="history", verbose_name=_("order")
    )
    from_status = models.CharField(max_length=16, choices=OrderStatus.choices, blank=True)
    to_status = models.CharField(max_length=16, choices=OrderStatus.choices)
    reason = models.CharField(max_length=200, blank=True)  # the note: why, or tracking
    # Who moved it: "staff:<username>", "api:<key prefix>", "customer", "payments".
    actor = models.CharField(max_length=80, blank=True)
    payment_reference = models.CharField(
        max_length=64, blank=True, verbose_name=_("payment reference")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        indexes = [models.Index(fields=["tenant", "order", "created_at"], name="order_history")]

    def __str__(self) -> str:
        return f"{self.from_status or '-'} -> {self.to_status}"
