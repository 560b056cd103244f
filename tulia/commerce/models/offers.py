"""Offers (the discount rule), coupons (codes that unlock one) and redemptions."""

from __future__ import annotations

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import Customer, TenantOwnedModel
from tulia.commerce.models.catalog import CatalogItem, Category
from tulia.commerce.models.money import ZERO, money_field

code_validator = RegexValidator(r"^[A-Z0-9_-]{3,32}$", "3-32 of A-Z, 0-9, '_' and '-'")


class Offer(TenantOwnedModel):
    class Kind(models.TextChoices):
        PERCENTAGE = "percentage", _("Percentage")
        FIXED = "fixed", _("Fixed")

    class Scope(models.TextChoices):
        ORDER = "order", _("Order")
        CATEGORY = "category", _("Category")
        ITEM = "item", _("Item")

    name = models.CharField(max_length=120, verbose_name=_("name"))
    description = models.CharField(max_length=300, blank=True, verbose_name=_("description"))
    kind = models.CharField(max_length=12, choices=Kind.choices, verbose_name=_("kind"))
    # Percent (0-100] for percentage offers, whole KES for fixed ones.
    value = money_field(validators=[MinValueValidator(ZERO)], verbose_name=_("value"))
    min_spend = money_field(
        default=ZERO, validators=[MinValueValidator(ZERO)], verbose_name=_("min spend")
    )
    scope = models.CharField(
        max_length=10, choices=Scope.choices, default=Scope.ORDER, verbose_name=_("scope")
    )
    category = models.ForeignKey(
        Category,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("category"),
    )
    item = models.ForeignKey(
        CatalogItem,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("item"),
    )
    starts_at = models.DateTimeField(null=True, blank=True, verbose_name=_("starts at"))
    ends_at = models.DateTimeField(null=True, blank=True, verbose_name=_("ends at"))
    usage_limit_total = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("usage limit total")
    )
    usage_limit_per_customer = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("usage limit per customer")
    )
    # Advertised offers are suggested by the bot; others work only for who knows the code.
    advertised = models.BooleanField(default=True, verbose_name=_("advertised"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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
    code = models.CharField(max_length=32, validators=[code_validator], verbose_name=_("code"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "code"], name="coupon_unique")]
        verbose_name = _("coupon")
        verbose_name_plural = _("coupons")

    def __str__(self) -> str:
        return self.code


class OfferRedemption(TenantOwnedModel):
    """A coupon used on an order; counts towards the offer's usage limits."""

    offer = models.ForeignKey(Offer, on_delete=models.PROTECT, related_name="redemptions")
    coupon = models.ForeignKey(Coupon, on_delete=models.PROTECT, related_name="+")
    order = models.ForeignKey(
        "commerce.Order", on_delete=models.CASCADE, related_name="+", verbose_name=_("order")
    )
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="+")
    amount = money_field()
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            # One coupon per order: re-applying replaces the redemption row.
            models.UniqueConstraint(fields=["tenant", "order"], name="redemption_one_per_order"),
        ]
        indexes = [models.Index(fields=["tenant", "offer", "customer"], name="redemption_usage")]

    def __str__(self) -> str:
        return f"{self.coupon} on {self.order}"
