"""KES amounts: Decimal with two places, and whole shillings where M-Pesa needs them."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from django.core.exceptions import ValidationError
from django.db import models

ZERO = Decimal("0.00")
CENTS = Decimal("0.01")
SHILLING = Decimal("1")


def kes(value: Decimal | int | str) -> Decimal:
    return Decimal(value).quantize(CENTS)


def whole_shillings_down(value: Decimal) -> Decimal:
    """Discounts are rounded down so a shop never gives more than it advertised."""
    return value.quantize(SHILLING, rounding=ROUND_DOWN).quantize(CENTS)


def validate_whole_shillings(value: Decimal) -> None:
    # Prices are whole shillings so every order total can be charged over M-Pesa as is.
    if value != value.quantize(SHILLING):
        raise ValidationError("KES prices are whole shillings (no cents)")
    if value < 0:
        raise ValidationError("amounts cannot be negative")


def money_field(**kwargs: object) -> models.DecimalField:
    return models.DecimalField(max_digits=12, decimal_places=2, **kwargs)  # type: ignore[arg-type]
