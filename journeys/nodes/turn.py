"""The start of a turn: sanitise the inbound text and clear last turn's per-turn fields."""

from __future__ import annotations

from journeys.sanitize import sanitize_inbound
from journeys.state import ConversationState
from tulia.text import ReplyKey


def start_turn(state: ConversationState, raw_text: str) -> ConversationState:
    """Update opening a turn; the raw text never enters the state, only its sanitised form."""
    return ConversationState(
        inbound_text=sanitize_inbound(raw_text).text,
        turn_count=state.get("turn_count", 0) + 1,
        llm_calls=0,
        message_reading=None,
        response_text=None,
        consent_command=None,
        governor_action=None,
    )


def reply_key(state: ConversationState) -> ReplyKey:
    return ReplyKey(conversation_id=state["conversation_id"], turn=state.get("turn_count", 0))
