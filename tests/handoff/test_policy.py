"""Assignment decision: hours, presence, reconnect, queue with an estimate."""

from __future__ import annotations

from tulia.handoff.policy import AgentLoad, DeskSnapshot, Outcome, Presence, decide

ALICE = AgentLoad(1, Presence.ONLINE, active_chats=1, capacity=3)
BOB_FULL = AgentLoad(2, Presence.ONLINE, active_chats=3, capacity=3)
CAROL_AWAY = AgentLoad(3, Presence.AWAY, active_chats=0, capacity=3)
DAN_OFF = AgentLoad(4, Presence.OFFLINE, active_chats=0, capacity=3)


def _snap(*agents: AgentLoad, previous: int | None = None, ahead: int = 0, hours: bool = True):
    return DeskSnapshot(
        in_hours=hours, agents=agents, previous_agent_id=previous, waiting_ahead=ahead
    )


def test_outside_hours_nobody_is_promised() -> None:
    assert decide(_snap(ALICE, previous=1, hours=False)).outcome is Outcome.AFTER_HOURS


def test_no_agent_online_or_away_is_said_honestly() -> None:
    assert decide(_snap(DAN_OFF)).outcome is Outcome.NO_AGENTS
    assert decide(_snap()).outcome is Outcome.NO_AGENTS


def test_previous_agent_online_with_room_is_reconnected() -> None:
    result = decide(_snap(ALICE, BOB_FULL, previous=1))
    assert (result.outcome, result.agent_id) == (Outcome.RECONNECTED, 1)


def test_previous_agent_at_capacity_or_away_means_queue() -> None:
    assert decide(_snap(ALICE, BOB_FULL, previous=2)).outcome is Outcome.QUEUED
    assert decide(_snap(ALICE, CAROL_AWAY, previous=3)).outcome is Outcome.QUEUED


def test_queue_position_and_wait_grow_with_the_queue() -> None:
    result = decide(_snap(ALICE, BOB_FULL, ahead=3))
    assert (result.queue_position, result.estimated_wait_minutes) == (4, 12)


def test_only_away_agents_still_queue_with_an_estimate() -> None:
    result = decide(_snap(CAROL_AWAY))
    assert (result.outcome, result.queue_position, result.estimated_wait_minutes) == (
        Outcome.QUEUED,
        1,
        6,
    )
