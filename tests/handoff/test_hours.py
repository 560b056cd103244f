"""Business hours are read in the tenant's timezone, per weekday."""

from __future__ import annotations

from datetime import UTC, datetime

from tenants.config import BusinessHours
from tulia.handoff.hours import is_open, next_opening

WEEKDAYS_8_TO_17 = BusinessHours.model_validate(
    {day: [{"opens": "08:00", "closes": "17:00"}] for day in ("mon", "tue", "wed", "thu", "fri")}
    | {"sat": [{"opens": "09:00", "closes": "12:00"}, {"opens": "14:00", "closes": "16:00"}]}
)


def test_opening_is_inclusive_and_closing_exclusive_in_nairobi() -> None:
    # Monday 2026-03-02; Nairobi is UTC+3.
    assert is_open(WEEKDAYS_8_TO_17, "Africa/Nairobi", datetime(2026, 3, 2, 5, 0, tzinfo=UTC))
    assert not is_open(WEEKDAYS_8_TO_17, "Africa/Nairobi", datetime(2026, 3, 2, 4, 59, tzinfo=UTC))
    assert not is_open(WEEKDAYS_8_TO_17, "Africa/Nairobi", datetime(2026, 3, 2, 14, 0, tzinfo=UTC))


def test_the_same_instant_differs_by_tenant_timezone() -> None:
    instant = datetime(2026, 3, 2, 15, 30, tzinfo=UTC)  # 18:30 Nairobi, 15:30 London
    assert not is_open(WEEKDAYS_8_TO_17, "Africa/Nairobi", instant)
    assert is_open(WEEKDAYS_8_TO_17, "Europe/London", instant)


def test_weekday_is_taken_after_the_timezone_shift() -> None:
    # Friday 23:30 UTC is already Saturday 02:30 in Nairobi: closed (Saturday opens 09:00),
    # while in Los Angeles it is Friday 15:30: open.
    instant = datetime(2026, 3, 6, 23, 30, tzinfo=UTC)
    assert not is_open(WEEKDAYS_8_TO_17, "Africa/Nairobi", instant)
    assert is_open(WEEKDAYS_8_TO_17, "America/Los_Angeles", instant)


def test_split_saturday_and_closed_sunday() -> None:
    assert not is_open(WEEKDAYS_8_TO_17, "UTC", datetime(2026, 3, 7, 13, 0, tzinfo=UTC))
    assert is_open(WEEKDAYS_8_TO_17, "UTC", datetime(2026, 3, 7, 15, 0, tzinfo=UTC))
    assert not is_open(WEEKDAYS_8_TO_17, "UTC", datetime(2026, 3, 8, 10, 0, tzinfo=UTC))


def test_next_opening_after_saturday_close_is_monday_morning() -> None:
    opening = next_opening(WEEKDAYS_8_TO_17, "Africa/Nairobi", datetime(2026, 3, 7, 14, tzinfo=UTC))
    assert opening is not None
    assert (opening.weekday(), opening.hour, opening.minute) == (0, 8, 0)


def test_no_schedule_at_all_means_hours_do_not_restrict() -> None:
    assert is_open(BusinessHours(), "Africa/Nairobi", datetime(2026, 3, 8, 2, tzinfo=UTC))
    assert next_opening(BusinessHours(), "Africa/Nairobi", datetime(2026, 3, 8, tzinfo=UTC)) is None
