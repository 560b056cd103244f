"""Template filters of the shop console: money and waiting times in words."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django import template
from django.utils.translation import gettext, ngettext

from tulia.console.money import kes_text

register = template.Library()


@register.filter
def kes(amount: Decimal | int | None) -> str:
    return kes_text(amount)


@register.filter
def duration_words(span: timedelta) -> str:
    """'3 min', '2 h 5 min', '1 day': how long someone has waited, at a glance."""
    minutes = int(span.total_seconds() // 60)
    if minutes < 60:
        return ngettext("%(n)d min", "%(n)d min", minutes) % {"n": minutes}
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return gettext("%(h)d h %(m)d min") % {"h": hours, "m": minutes}
    days = hours // 24
    return ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
