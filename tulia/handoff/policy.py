"""Who takes a handed-over conversation: a pure decision from a snapshot of the desk.

Order of questions (seed 004): open hours? anyone present? the previous agent online
with room? else the queue. Only the previous agent is assigned directly; everyone else
claims from the queue, so nobody is handed a chat they did not see coming.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

# A rough handling time per chat; the estimate is a promise, so it errs on the long side.
MINUTES_PER_CHAT = 6


class Presence(StrEnum):
    ONLINE = "online"
    AWAY = "away"
    OFFLINE = "offline"


class Outcome(StrEnum):
    RECONNECTED = "reconnected"
    QUEUED = "queued"
    AFTER_HOURS = "after_hours"
    NO_AGENTS = "no_agents"


@dataclass(frozen=True)
class AgentLoad:
    user_id: int
    presence: Presence
    active_chats: int
    capacity: int

    @property
    def can_take_more(self) -> bool:
        return self.presence is Presence.ONLINE and self.active_chats < self.capacity


@dataclass(frozen=True)
class DeskSnapshot:
    in_hours: bool
    agents: tuple[AgentLoad, ...]
    previous_agent_id: int | None
    waiting_ahead: int


@dataclass(frozen=True)
class Assignment:
    outcome: Outcome
    agent_id: int | None = None
    queue_position: int | None = None
    estimated_wait_minutes: int | None = None

    @property
    def staffed(self) -> bool:
        """A person will pick this up now-ish (as opposed to after hours / later)."""
        return self.outcome in (Outcome.RECONNECTED, Outcome.QUEUED)


def estimated_wait(position: int, online_agents: int) -> int:
    return math.ceil(position * MINUTES_PER_CHAT / max(1, online_agents))


def decide(snapshot: DeskSnapshot) -> Assignment:
    if not snapshot.in_hours:
        return Assignment(Outcome.AFTER_HOURS)
    present = [a for a in snapshot.agents if a.presence is not Presence.OFFLINE]
    if not present:
        return Assignment(Outcome.NO_AGENTS)
    previous = next((a for a in present if a.user_id == snapshot.previous_agent_id), None)
    if previous is not None and previous.can_take_more:
        return Assignment(Outcome.RECONNECTED, agent_id=previous.user_id)
    position = snapshot.waiting_ahead + 1
    online = sum(1 for a in present if a.presence is Presence.ONLINE)
    return Assignment(
        Outcome.QUEUED,
        queue_position=position,
        estimated_wait_minutes=estimated_wait(position, online),
    )
