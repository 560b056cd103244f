"""Business hours in the tenant's own timezone.

A schedule with no window on any day means the tenant has not set hours, so agent
presence alone decides; a schedule with some windows closes the days left empty.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tenants.config import BusinessHours

_LOOKAHEAD_DAYS = 8


def has_schedule(hours: BusinessHours) -> bool:
    return any(hours.windows(day) for day in range(7))


def local_time(at: datetime, timezone: str) -> datetime:
    if at.tzinfo is None:
        raise ValueError("business hours need an aware datetime")
    return at.astimezone(ZoneInfo(timezone))


def is_open(hours: BusinessHours, timezone: str, at: datetime) -> bool:
    """Whether `at` falls inside an opening window (opening inclusive, closing exclusive)."""
    if not has_schedule(hours):
        return True
    local = local_time(at, timezone)
    moment = local.time().replace(tzinfo=None)
    return any(w.opens <= moment < w.closes for w in hours.windows(local.weekday()))


def next_opening(hours: BusinessHours, timezone: str, at: datetime) -> datetime | None:
    """The next local opening time after `at`, for an honest "we open at …" message."""
    if not has_schedule(hours):
        return None
    local = local_time(at, timezone)
    for offset in range(_LOOKAHEAD_DAYS):
        day = local.date() + timedelta(days=offset)
        for window in sorted(hours.windows(day.weekday()), key=lambda w: w.opens):
            opening = datetime.combine(day, window.opens, tzinfo=local.tzinfo)
            if opening > local:
                return opening
    return None
