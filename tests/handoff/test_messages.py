"""The handoff texts in each language the bot speaks: Sheng customers read Sheng."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tulia.handoff.messages import customer_message
from tulia.handoff.policy import Assignment, Outcome

ASSIGNMENTS = [
    Assignment(Outcome.RECONNECTED, agent_id=1),
    Assignment(Outcome.QUEUED, queue_position=2, estimated_wait_minutes=10),
    Assignment(Outcome.AFTER_HOURS),
    Assignment(Outcome.NO_AGENTS),
]


@pytest.mark.parametrize("assignment", ASSIGNMENTS, ids=lambda a: a.outcome.value)
def test_sheng_is_neither_swahili_nor_english(assignment: Assignment) -> None:
    said = {
        language: customer_message(
            assignment,
            language=language,
            ticket_opened=True,
            agent_name="Wanjiru",
            next_opening=datetime(2026, 3, 2, 8, 0, tzinfo=UTC),
        )
        for language in ("en", "sw", "sheng")
    }
    assert said["sheng"] not in (said["en"], said["sw"])


def test_sheng_keeps_the_queue_facts() -> None:
    queued = Assignment(Outcome.QUEUED, queue_position=3, estimated_wait_minutes=15)
    text = customer_message(queued, language="sheng", ticket_opened=True)
    assert "namba 3 kwa queue" in text
    assert "dakika 15" in text


def test_swahili_opening_hours_name_the_day_in_swahili() -> None:
    text = customer_message(
        Assignment(Outcome.AFTER_HOURS),
        language="sw",
        ticket_opened=True,
        next_opening=datetime(2026, 3, 2, 8, 0, tzinfo=UTC),  # a Monday
    )
    assert "Jumatatu saa 08:00" in text
    assert "Mon" not in text
