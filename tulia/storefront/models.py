"""The shop page's own settings and its visit counters; both are tenant-owned (RLS)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import TenantOwnedModel


class ShopProfile(TenantOwnedModel):
    """What the page says about the shop beyond its catalog; one row per tenant."""

    is_published = models.BooleanField(
        default=True, help_text=_("Off hides the whole page (it answers 404).")
    )
    tagline = models.CharField(max_length=160, blank=True)
    location = models.CharField(
        max_length=200, blank=True, help_text=_("e.g. 'Moi Avenue, Nairobi'")
    )
    map_url = models.URLField(max_length=400, blank=True)
    delivery_options = models.TextField(
        blank=True, help_text=_("One option per line, e.g. 'CBD same day - KES 200'")
    )

    class Meta:
        verbose_name = "shop page"
        constraints = [
            models.UniqueConstraint(fields=["tenant"], name="shop_profile_one_per_tenant")
        ]

    def __str__(self) -> str:
        return "Shop page"

    def delivery_lines(self) -> list[str]:
        return [line.strip() for line in self.delivery_options.splitlines() if line.strip()]


class SourceVisits(TenantOwnedModel):
    """Per day and source (?src=chat, a broadcast's tag, 'direct'): page landings and
    taps on "Order on WhatsApp", so the shop sees which links bring customers."""

    day = models.DateField()
    source = models.CharField(max_length=40, verbose_name=_("source"))
    visits = models.PositiveIntegerField(default=0, verbose_name=_("visits"))
    order_taps = models.PositiveIntegerField(default=0, verbose_name=_("order taps"))

    class Meta:
        verbose_name = "visits by source"
        verbose_name_plural = "visits by source"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "day", "source"], name="source_visits_one_per_day"
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.source}"
