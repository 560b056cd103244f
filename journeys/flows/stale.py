"""Nothing stale is acted on (issue 18 §1, seed 004 "session timeout").

Two clocks, both read from `tulia.clock` so a test holds them instead of sleeping:

- Silence. After `SESSION_SILENCE_SECONDS` without a message, the question the bot
  was waiting on is dropped: a "2" forty minutes later is not a pick from a list the
  customer has long forgotten. What the customer owns is kept: the open order, a
  payment in flight (an unpaid Paybill reference still settles), a handoff ticket.
- Quotes. A price confirmation or payment-method question older than
  `QUOTE_TTL_SECONDS` is never executed by a late answer: the sale reads the order
  again and asks once more with the total as it is now (`checkout.advance`).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from journeys.flows.state import FlowState
from journeys.state import combine
from tulia import clock

SESSION_SILENCE_SECONDS = 30 * 60
QUOTE_TTL_SECONDS = 15 * 60

# Sale steps that are a question about a list or an item, not yet about money.
_QUESTION_STEPS = ("choose", "variant", "quantity")
# Steps that await an answer about money: kept, and re-quoted when stale.
QUOTE_STEPS = ("method", "confirm")

# A dropped question takes its bookkeeping with it: the counts of a fresh session.
_FRESH_SESSION: dict[str, Any] = {
    "sale": {"pending_item": None, "rejections": 0},
    "escalation": {"frustrated_turns": 0},
    "support": {"clarify_text": None, "clarify_intent": None, "clarify_loops": 0, "misses": 0},
    "casual_turns": 0,
}


def silent_for(state: FlowState, now: float) -> float:
    """Seconds since the previous message (0 for the first one)."""
    last = state.get("last_seen_at")
    return max(now - float(last), 0.0) if last is not None else 0.0


def session_reset(state: FlowState, now: float) -> dict[str, Any]:
    """The update that opens a turn: the message's time, and after a long silence the
    pending question dropped (orders, payments and tickets untouched)."""
    update: dict[str, Any] = {"last_seen_at": now}
    if silent_for(state, now) < SESSION_SILENCE_SECONDS:
        return update
    update = combine(update, deepcopy(_FRESH_SESSION))
    step = state["sale"]["step"]
    if step in _QUOTE_STEPS_AND_LATER:
        update["awaiting_answer"] = step in QUOTE_STEPS
    else:
        update = combine(update, {"awaiting_answer": False, "sale": {"step": None}})
    if step in _QUESTION_STEPS or not step:
        update["journey_step"] = None
    return update


# A sale past the question steps keeps its place: the money steps are re-quoted, a
# payment in flight or paused is still the customer's.
_QUOTE_STEPS_AND_LATER = (*QUOTE_STEPS, "paying", "paused")


def quote_is_stale(state: FlowState) -> bool:
    """Was the pending money question asked more than QUOTE_TTL_SECONDS ago?"""
    asked = state.get("quoted_at")
    return asked is not None and clock.now() - float(asked) >= QUOTE_TTL_SECONDS
