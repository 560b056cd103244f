"""What the customer is told when handed over: honest about hours, people and waits.

The graph's handoff_message node may rephrase these; it must keep the facts (no agent
promised when none is there, the queue position and the estimate as computed). The
wording lives in the text catalog under "handoff.".
"""

from __future__ import annotations

from datetime import datetime

from tulia.handoff.policy import Assignment, Outcome
from tulia.text import label, say


def _opening(language: str, next_opening: datetime | None, key: str = "handoff.opens") -> str:
    """When a person is there again; nothing when the shop keeps no hours (no promise)."""
    if next_opening is None:
        return ""
    day = label("handoff.weekday", str(next_opening.weekday()), language)
    return say(key, language, day=day, time=next_opening.strftime("%H:%M"))


def customer_message(
    assignment: Assignment,
    *,
    language: str,
    ticket_opened: bool,
    agent_name: str = "",
    next_opening: datetime | None = None,
) -> str:
    if assignment.outcome is Outcome.RECONNECTED:
        agent = agent_name or say("handoff.our_agent", language)
        return say("handoff.reconnected", language, agent=agent)
    if assignment.outcome is Outcome.QUEUED:
        return say(
            "handoff.queued",
            language,
            position=assignment.queue_position,
            minutes=assignment.estimated_wait_minutes,
        )
    opening = ""
    if assignment.outcome is Outcome.AFTER_HOURS:
        opening = _opening(language, next_opening)
    elif assignment.outcome is Outcome.NO_AGENTS:
        opening = _opening(language, next_opening, key="handoff.back_by")
    head = say(f"handoff.{assignment.outcome.value}", language, opening=opening)
    return head + say("handoff.logged" if ticket_opened else "handoff.not_logged", language)
