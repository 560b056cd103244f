"""The graph's state: seed 002's ConversationState plus what the journeys remember.

LangGraph only keeps keys declared on the schema, so the journeys' own bookkeeping is
declared here instead of being added to the canonical state. Every field is plain
JSON: the gateway stores the state as is between turns.
"""

from __future__ import annotations

from typing import Any

from journeys.state import ConversationState


class FlowState(ConversationState, total=False):
    sales_step: str | None
    """Where the sale stands between turns: choose, variant, quantity, method, confirm,
    paying; None when no sale is under way. Kept while the customer changes topic."""
    pending_item: dict[str, Any] | None
    """The item being configured: id, name, variants, chosen variant, quantity."""
    payment_methods: list[str]
    payment_method: str | None
    payment_attempt: int
    """Payment attempts on the open order: a retry asks the provider for a new one."""
    quoted_amount_kes: int | None
    """The total the last confirmation question showed; payment uses exactly this."""
    rejections: int
    support_misses: int
    tool_error_streak: int
    clarify_loops: int
    """Clarifying questions asked in a row, each after a message the bot could not place;
    one more such message completes that many clarification loops (SPEC §5.5)."""
    frustrated_turns: int
    turn_facts: list[Any]
    """Every tool output of this turn: the reply guard checks amounts against them."""
    transcript: list[str]
    """The last few lines of the conversation, for the handoff ticket summary."""
    graph_path: list[str]
    """Nodes this turn went through, in order (shows every turn ran the graph)."""
    escalation_category: str | None
    escalation_rules: dict[str, Any]
    clarify_text: str | None
    """The message a clarifying question was about; a "yes" to the question replays it."""
    clarify_intent: str | None
    inbound_kind: str
    """"text" or what else arrived (photo, voice note...): non-text gets a polite note."""
    last_language: str | None
    """The reply language of the previous turn, kept when detection is unsure."""
    delivery_options: dict[str, Any] | None
    """The shop's delivery zones and pickup place while the sale asks how the goods
    reach the customer (journeys.flows.delivery)."""
    order_action: dict[str, Any] | None
    """A return, refund or cancellation under way: kind, listed references, the order
    (journeys.flows.order_actions)."""
    last_seen_at: float | None
    """When the previous message arrived (tulia.clock seconds): a long silence drops
    the pending question (journeys.flows.stale)."""
    conversation_status: str
    """The conversation's status as the turn found it (ai_active, waiting,
    agent_active): with a person, the journeys are skipped (never stored)."""
    waiting_notice_at: float | None
    """When the waiting customer was last told the queue or the opening hours."""
    pay_phone: str | None
    """The phone the M-Pesa prompt goes to when the customer named another one."""
    hinted_codes: list[str]
    """Coupon codes the bot suggested for the open order: sent back alone, applied."""
    shop_version: str | None
    """The tenant row's `updated_at` when the persona fields were last read: the persona
    tool is asked again only when the shop's settings changed (journeys.flows.turn)."""
    quoted_at: float | None
    """When the pending payment-method or amount question was asked: a late answer to
    it is re-quoted, never executed."""


FLOW_DEFAULTS: dict[str, Any] = {
    "sales_step": None,
    "pending_item": None,
    "payment_methods": [],
    "payment_method": None,
    "payment_attempt": 0,
    "quoted_amount_kes": None,
    "rejections": 0,
    "support_misses": 0,
    "tool_error_streak": 0,
    "clarify_loops": 0,
    "frustrated_turns": 0,
    "turn_facts": [],
    "transcript": [],
    "graph_path": [],
    "escalation_category": None,
    "escalation_rules": {},
    "clarify_text": None,
    "clarify_intent": None,
    "inbound_kind": "text",
    "last_language": None,
    "delivery_options": None,
    "order_action": None,
    "last_seen_at": None,
    "quoted_at": None,
    "shop_version": None,
    "hinted_codes": [],
    "pay_phone": None,
    "conversation_status": "ai_active",
    "waiting_notice_at": None,
}
