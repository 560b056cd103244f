"""The handoff texts in each language the bot speaks: Sheng customers read Sheng."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tulia.handoff.messages import _TEXT, customer_message
from tulia.handoff.policy import Assignment, Outcome

ASSIGNMENTS = [
    Assignment(Outcome.RECONNECTED, agent_id=1),
    Assignment(Outcome.QUEUED, queue_position=2, estimated_wait_minutes=10),
    Assignment(Outcome.AFTER_HOURS),
    Assignment(Outcome.NO_AGENTS),
]


def test_every_english_text_has_a_sheng_variant() -> None:
    assert set(_TEXT["sheng"]) == set(_TEXT["en"])


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
