"""Offers (the discount rule), coupons (codes that unlock one) and redemptions."""

from __future__ import annotations

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models

from tenants.models import Customer, TenantOwnedModel
from tulia.commerce.models.catalog import CatalogItem, Category
from tulia.commerce.models.money import ZERO, money_field

code_validator = RegexValidator(r"^[A-Z0-9_-]{3,32}$", "3-32 of A-Z, 0-9, '_' and '-'")


class Offer(TenantOwnedModel):
    class Kind(models.TextChoices):
        PERCENTAGE = "percentage"
        FIXED = "fixed"

    class Scope(models.TextChoices):
        ORDER = "order"
        CATEGORY = "category"
        ITEM = "item"

    name = models.CharField(max_length=120)
    description = models.CharField(max_length=300, blank=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    # Percent (0-100] for percentage offers, whole KES for fixed ones.
    value = money_field(validators=[MinValueValidator(ZERO)])
    min_spend = money_field(default=ZERO, validators=[MinValueValidator(ZERO)])
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.ORDER)
    category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    item = models.ForeignKey(
        CatalogItem, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    usage_limit_total = models.PositiveIntegerField(null=True, blank=True)
    usage_limit_per_customer = models.PositiveIntegerField(null=True, blank=True)
    # Advertised offers are suggested by the bot; others work only for who knows the code.
    advertised = models.BooleanField(default=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(kind="percentage") | models.Q(value__lte=100),
                name="offer_percentage_at_most_100",
            ),
            models.CheckConstraint(
                condition=models.Q(scope="order")
                | models.Q(scope="category", category__isnull=False)
                | models.Q(scope="item", item__isnull=False),
                name="offer_scope_has_target",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Coupon(TenantOwnedModel):
    offer = models.ForeignKey(Offer, on_delete=models.CASCADE, related_name="coupons")
    code = models.CharField(max_length=32, validators=[code_validator])
    is_active = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "code"], name="coupon_unique")]

    def __str__(self) -> str:
        return self.code


class OfferRedemption(TenantOwnedModel):
    """A coupon used on an order; counts towards the offer's usage limits."""

    offer = models.ForeignKey(Offer, on_delete=models.PROTECT, related_name="redemptions")
    coupon = models.ForeignKey(Coupon, on_delete=models.PROTECT, related_name="+")
    order = models.ForeignKey("commerce.Order", on_delete=models.CASCADE, related_name="+")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="+")
    amount = money_field()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # One coupon per order: re-applying replaces the redemption row.
            models.UniqueConstraint(fields=["tenant", "order"], name="redemption_one_per_order"),
        ]
        indexes = [models.Index(fields=["tenant", "offer", "customer"], name="redemption_usage")]

    def __str__(self) -> str:
        return f"{self.coupon} on {self.order}"
