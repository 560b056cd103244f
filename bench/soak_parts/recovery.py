"""How quickly the platform answered again after each fault, and the longest wait.

Read from PostgreSQL after the drain. A customer's wait is from the message being
stored to the first part of its reply reaching Twilio (or, for a turn that sends no
reply, such as one taken over by a person, to the turn being handled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from soak_parts.ledger import query

# Per message the soak sent: stored, handled, and first reply sent (epoch seconds).
_TIMES = (
    "SELECT extract(epoch FROM i.received_at), extract(epoch FROM i.processed_at),"
    " extract(epoch FROM coalesce(min(o.sent_at), i.processed_at))"
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


def _times(sids: list[str]) -> list[tuple[float, float, float]]:
    return [(float(a), float(b), float(c)) for a, b, c in query(_TIMES, [sids])]


def recoveries(sids: list[str], killed_at: dict[str, float]) -> list[Recovery]:
    times = _times(sids)
    found = []
    for fault, at in sorted(killed_at.items(), key=lambda item: item[1]):
        after = [handled for stored, handled, _ in times if stored >= at]
        stranded = [answered for stored, handled, answered in times if stored < at < handled]
        found.append(
            Recovery(
                fault=fault,
                first_turn_s=round(min(after) - at, 2) if after else None,
                stranded=len(stranded),
                stranded_answered_s=round(max(stranded) - at, 2) if stranded else None,
            )
        )
    return found


def longest_wait_s(sids: list[str]) -> float:
    """The longest any customer waited, stored → first reply part sent."""
    return round(max((answered - stored for stored, _, answered in _times(sids)), default=0.0), 2)


def as_dict(recovery: Recovery) -> dict[str, Any]:
    return {
        "first_turn_s": recovery.first_turn_s,
        "stranded": recovery.stranded,
        "stranded_answered_s": recovery.stranded_answered_s,
    }
