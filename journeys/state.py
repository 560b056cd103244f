"""The canonical conversation state (seed 002), shared by every graph node.

A TypedDict rather than a dataclass because LangGraph merges the partial dicts nodes
return into it. Field names follow seed 002 exactly so stored states and prompts speak
one vocabulary; a few engine fields (inbound text, counters, LLM accounting) are added
at the end. Anything not known is None or "unknown", never a guess.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, get_args

Intent = Literal[
    "sales_discovery",
    "product_question",
    "support_question",
    "order_status",
    "discounts_offers",
    "preferences_consent",
    "payment_help",
    "human_request",
    "spam_casual",
    "unknown",
]
Journey = Literal["sales", "support", "orders", "offers", "prefs", "governance", "unknown"]
Lang = Literal["en", "sw", "sheng", "mixed"]
GovernorClass = Literal["business", "casual", "spam", "abuse"]

INTENTS: tuple[str, ...] = get_args(Intent)
LANGS: tuple[str, ...] = get_args(Lang)
GOVERNOR_CLASSES: tuple[str, ...] = get_args(GovernorClass)


class ConversationState(TypedDict, total=False):
    # Identity & scoping
    tenant_id: str
    conversation_id: str
    request_id: str
    customer_id: str | None
    phone_e164: str | None

    # Tenant context
    tenant_name: str | None
    bot_name: str | None
    bot_intro: str | None
    tone_style: str
    default_language: Lang
    allowed_languages: list[str]
    max_chattiness_level: int
    catalog_link_base: str | None
    payments_enabled: dict[str, bool]
    compliance: dict[str, Any]
    handoff: dict[str, Any]

    # Customer preferences / consent
    customer_language_pref: Lang | None
    marketing_opt_in: bool | None
    notification_prefs: dict[str, bool]

    # Classifiers
    intent: Intent
    intent_confidence: float
    journey: Journey
    response_language: Lang
    language_confidence: float
    governor_classification: GovernorClass
    governor_confidence: float

    # Catalog selection & ordering
    last_catalog_query: str | None
    last_catalog_filters: dict[str, Any]
    last_catalog_results: list[dict[str, Any]]
    catalog_total_matches_estimate: int | None
    selected_item_ids: list[str]
    cart: list[dict[str, Any]]
    order_id: str | None
    order_totals: dict[str, Any]
    payment_request_id: str | None
    payment_status: str | None

    # Retrieval context (RAG)
    kb_snippets: list[dict[str, Any]]

    # Safety / escalation
    escalation_required: bool
    escalation_reason: str | None
    handoff_ticket_id: str | None

    # Conversation controls
    turn_count: int
    casual_turns: int
    spam_turns: int

    # Output
    response_text: str | None

    # Engine additions (not in seed 002)
    inbound_text: str
    """The sanitised customer message of this turn."""
    detected_language: Lang | None
    """What language_policy detected, before the tenant/customer rule picked the reply."""
    consent_command: str | None
    """"opt_out" when this turn was a STOP-style command, else None."""
    governor_action: str | None
    """What the governor decided for this turn (see journeys.nlu.governor.Action)."""
    abuse_turns: int
    journey_step: str | None
    """Where in its journey the conversation stands (handoff tickets carry it)."""
    awaiting_answer: bool
    """The bot's last message asked a yes/no question, so a bare "sitaki" means "no"."""
    llm_calls: int
    """LLM calls made during the current turn (reset by the turn runner)."""
    message_reading: dict[str, object] | None
    """This turn's one LLM reading of the message (journeys.llm.schemas.MessageReading as
    a dict; {} when the call failed; None when none was asked). Reset every turn."""


def new_state(*, tenant_id: str, conversation_id: str, request_id: str) -> ConversationState:
    """A fresh state: identity is required, everything else starts unknown or empty."""
    return ConversationState(
        tenant_id=tenant_id,
        conversation_id=conversation_id,
        request_id=request_id,
        customer_id=None,
        phone_e164=None,
        tenant_name=None,
        bot_name=None,
        bot_intro=None,
        tone_style="friendly_concise",
        default_language="en",
        allowed_languages=["en", "sw", "sheng"],
        max_chattiness_level=2,
        catalog_link_base=None,
        payments_enabled={},
        compliance={},
        handoff={},
        customer_language_pref=None,
        marketing_opt_in=None,
        notification_prefs={},
        intent="unknown",
        intent_confidence=0.0,
        journey="unknown",
        response_language="en",
        language_confidence=0.0,
        governor_classification="business",
        governor_confidence=0.0,
        last_catalog_query=None,
        last_catalog_filters={},
        last_catalog_results=[],
        catalog_total_matches_estimate=None,
        selected_item_ids=[],
        cart=[],
        order_id=None,
        order_totals={},
        payment_request_id=None,
        payment_status=None,
        kb_snippets=[],
        escalation_required=False,
        escalation_reason=None,
        handoff_ticket_id=None,
        turn_count=0,
        casual_turns=0,
        spam_turns=0,
        response_text=None,
        inbound_text="",
        detected_language=None,
        consent_command=None,
        governor_action=None,
        abuse_turns=0,
        journey_step=None,
        awaiting_answer=False,
        llm_calls=0,
        message_reading=None,
    )
