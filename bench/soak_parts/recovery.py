"""How quickly the platform answered again after each fault, and the longest wait.

Read from PostgreSQL after the drain. A customer's wait is from the message being
stored to the first part of its reply reaching Twilio (or, for a turn that sends no
reply, such as one taken over by a person, to the turn being handled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from soak_parts.ledger import query

# Per message the soak sent: stored, handled, and first reply sent (epoch seconds), and
# how many times a turn claimed it (2 or more: a turn holding it was lost and retried).
_TIMES = (
    "SELECT extract(epoch FROM i.received_at), extract(epoch FROM i.processed_at),"
    " extract(epoch FROM coalesce(min(o.sent_at), i.processed_at)), i.attempts"
    " FROM conversations_inboundmessage i LEFT JOIN conversations_outboundmessage o"
    " ON o.request_id = i.request_id AND o.tenant_id = i.tenant_id AND o.part_index = 0"
    " WHERE i.message_sid = ANY(%s) AND i.status = 'processed' GROUP BY i.id"
)


@dataclass(frozen=True)
class Recovery:
    fault: str
    # From the fault to the first turn handled for a message sent after it.
    first_turn_s: float | None
    # Messages stored before the fault and not yet handled when it struck.
    stranded: int
    # From the fault to the last of those being answered.
    stranded_answered_s: float | None
    # Of those, the ones a turn had already claimed when the fault struck and that were
    # claimed again (the turns the fault really stranded; the rest were only queued, and
    # how long they wait measures the backlog of a saturated machine, not the recovery).
    retried: int = 0
    retried_answered_s: float | None = None


def _times(sids: list[str]) -> list[tuple[float, float, float, int]]:
    return [(float(a), float(b), float(c), int(n)) for a, b, c, n in query(_TIMES, [sids])]


def recoveries(sids: list[str], killed_at: dict[str, float]) -> list[Recovery]:
    times = _times(sids)
    found = []
    for fault, at in sorted(killed_at.items(), key=lambda item: item[1]):
        after = [handled for stored, handled, _, _ in times if stored >= at]
        pending = [(answered, n) for stored, handled, answered, n in times if stored < at < handled]
        stranded = [answered for answered, _ in pending]
        retried = [answered for answered, n in pending if n >= 2]
        found.append(
            Recovery(
                fault=fault,
                first_turn_s=round(min(after) - at, 2) if after else None,
                stranded=len(stranded),
                stranded_answered_s=round(max(stranded) - at, 2) if stranded else None,
                retried=len(retried),
                retried_answered_s=round(max(retried) - at, 2) if retried else None,
            )
        )
    return found


def longest_wait_s(sids: list[str]) -> float:
    """The longest any customer waited, stored → first reply part sent."""
    waits = (answered - stored for stored, _, answered, _ in _times(sids))
    return round(max(waits, default=0.0), 2)


def as_dict(recovery: Recovery) -> dict[str, Any]:
    return {
        "first_turn_s": recovery.first_turn_s,
        "stranded": recovery.stranded,
        "stranded_answered_s": recovery.stranded_answered_s,
        "retried": recovery.retried,
        "retried_answered_s": recovery.retried_answered_s,
    }
