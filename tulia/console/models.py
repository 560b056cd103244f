"""A staff member's own choices for the console (not shop data: keyed by login)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import LANGUAGE_CHOICES

# The admin speaks these (tulia/console/locale); Sheng staff read Kiswahili.
ADMIN_LANGUAGES = [choice for choice in LANGUAGE_CHOICES if choice[0] in ("en", "sw")]


class StaffPreference(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="console_preference",
        verbose_name=_("user"),
    )
    language = models.CharField(max_length=8, choices=ADMIN_LANGUAGES, default="en")

    def __str__(self) -> str:
        return f"{self.user} ({self.language})"
