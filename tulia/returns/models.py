"""A tenant's return/refund policy and the return/refund requests customers make."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import Customer, TenantOwnedModel
from tulia.commerce.models import Order
from tulia.handoff.models import HandoffTicket


class ReturnPolicy(TenantOwnedModel):
    """One per tenant. A blank damage-word list means the built-in English/Swahili list."""

    return_days = models.PositiveSmallIntegerField(default=30, validators=[MaxValueValidator(365)])
    refund_days = models.PositiveSmallIntegerField(default=14, validators=[MaxValueValidator(365)])
    category_rules = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per category slug, e.g. {"electronics": {"return_days": 7}, '
        '"food": {"returnable": false}}',
    )
    non_returnable_skus = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    final_sale_skus = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    damage_words = ArrayField(models.CharField(max_length=60), default=list, blank=True)
    max_returns_30d = models.PositiveSmallIntegerField(default=3)
    exchange_days = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MaxValueValidator(365)],
        help_text=_("Days from delivery to ask for another size or colour; blank: as returns."),
    )
    # Most shops keep the delivery fee when goods come back (the rider was paid).
    refund_delivery_fee = models.BooleanField(
        default=False,
        help_text=_("Refund the delivery fee too when a whole order is returned."),
    )
    # Bumped on every save so each verdict names the policy it was decided under.
    version = models.PositiveIntegerField(default=1, editable=False)
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name_plural = "return policies"
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="return_policy_one_per_tenant")
        ]

    def __str__(self) -> str:
        return f"return policy v{self.version}"

    def clean(self) -> None:
        super().clean()
        problems = rule_problems(self.category_rules)
        if problems:
            raise ValidationError({"category_rules": problems})

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            self.version += 1  # a verdict names the policy version it was decided under
        super().save(*args, **kwargs)


_RULE_KEYS = {"return_days", "refund_days", "returnable"}


def rule_problems(rules: object) -> str:
    """Why per-category rules are malformed, or "" when they are fine."""
    if not isinstance(rules, dict):
        return "must be an object keyed by category slug"
    for slug, rule in rules.items():
        if not isinstance(rule, dict) or set(rule) - _RULE_KEYS:
            return f"{slug}: only {sorted(_RULE_KEYS)} are allowed"
        for key in ("return_days", "refund_days"):
            days = rule.get(key)
            if days is not None and (not isinstance(days, int) or not 0 <= days <= 365):
                return f"{slug}.{key}: whole days between 0 and 365"
    return ""


class ReturnRequest(TenantOwnedModel):
    """Same order + action → same request and ticket (the idempotency key)."""

    class Action(models.TextChoices):
        RETURN = "return"
        REFUND = "refund"
        EXCHANGE = "exchange"

    order = models.ForeignKey(
        Order, on_delete=models.CASCADE, related_name="+", verbose_name=_("order")
    )
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    action = models.CharField(max_length=8, choices=Action.choices)
    skus = ArrayField(models.CharField(max_length=64), default=list)
    reason_text = models.CharField(max_length=1000, blank=True)
    # An exchange: what the customer wants instead ("size 43"), and the variant set
    # aside for it when staff approved (stock taken then, so it cannot be sold twice).
    wanted = models.CharField(max_length=120, blank=True)
    replacement_sku = models.CharField(max_length=64, blank=True)
    verdict = models.JSONField(default=dict)
    ticket = models.ForeignKey(
        HandoffTicket, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    request_id = models.CharField(max_length=64, blank=True)
    # The person's decision (the verdict only advises), the item back in the shop.
    decision = models.CharField(
        max_length=8, blank=True, choices=[("approved", "Approved"), ("rejected", "Rejected")]
    )
    decided_by = models.CharField(max_length=80, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "order", "action"], name="return_request_once_per_action"
            )
        ]
        indexes = [models.Index(fields=["tenant", "customer", "created_at"], name="returns_recent")]

    def __str__(self) -> str:
        return f"{self.action} of {self.order_id}"
