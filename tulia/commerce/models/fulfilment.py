"""How a shop hands goods over: delivery zones with fees, and pickup at the shop."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import TenantOwnedModel
from tulia.commerce.models.money import money_field


class FulfilmentSettings(TenantOwnedModel):
    """One per tenant. No row, or neither delivery zones nor pickup: the sale skips the
    delivery question (the shop arranges it with the customer)."""

    delivery_zones = models.JSONField(
        default=list,
        blank=True,
        help_text='A list of zones, e.g. [{"name": "Nairobi CBD", "fee": 200, "areas": '
        '["cbd", "town"]}, {"name": "Mombasa", "fee": 500, "courier": true}]; a courier '
        "zone is never free.",
    )
    free_delivery_from = money_field(
        null=True, blank=True, help_text=_("Orders of at least this much (after offers) ship free.")
    )
    pickup_location = models.CharField(
        max_length=300, blank=True, help_text=_("Where customers collect; blank: no pickup.")
    )
    pickup_hours = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name_plural = "fulfilment settings"
        constraints = [models.UniqueConstraint(fields=["tenant"], name="fulfilment_one_per_tenant")]

    def __str__(self) -> str:
        return "delivery and pickup"

    def clean(self) -> None:
        super().clean()
        problem = zone_problems(self.delivery_zones)
        if problem:
            raise ValidationError({"delivery_zones": problem})


def zone_problems(zones: object) -> str:
    """Why the zone list is malformed, or "" when it is fine."""
    if not isinstance(zones, list):
        return "must be a list of zones"
    for zone in zones:
        if not isinstance(zone, dict) or set(zone) - {"name", "fee", "areas", "courier"}:
            return 'each zone is {"name": ..., "fee": ..., "areas": [...]}'
        if not isinstance(zone.get("name"), str) or not zone["name"].strip():
            return "every zone needs a name"
        fee = zone.get("fee")
        if not isinstance(fee, int) or isinstance(fee, bool) or not 0 <= fee <= 100_000:
            return f"{zone['name']}: the fee is whole shillings between 0 and 100000"
        areas = zone.get("areas", [])
        if not isinstance(areas, list) or not all(isinstance(a, str) for a in areas):
            return f"{zone['name']}: areas is a list of place names"
    return ""
