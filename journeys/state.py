"""The conversation state: typed parts, one set of defaults, a version (SPEC §5.1).

The graph's state is one TypedDict: LangGraph keeps one channel per key and merges the
partial dicts nodes return into it, and the gateway stores it as plain JSON between
turns. It is composed of parts, one TypedDict each, so every key has one owner and one
type; journeys/README.md lists them on one page. The governance, sale, support and
escalation parts are nested (`state["sale"]["step"]`), each a channel whose reducer,
`merge_part`, merges the fields a node returns into the stored part; the rest
(identity, shop, customer, last turn, the governor's counts, checkout, session) are
still flat keys.

`PersistedState` is what the gateway stores; `TurnScratch` is per-turn working memory
that `stored()` drops (never saved). `STATE_VERSION` names the stored shape: a state
saved by older code goes through `journeys.upgrade.upgrade` before a turn reads it.
Anything not known is None or "unknown", never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar, cast, get_args

from tulia.whatsapp.schemas import InboundKind

STATE_VERSION = 3
"""1: every state stored before the version existed (9040080 .. fe806fe); 2: typed parts,
flat; 3: the governance, sale, support and escalation parts nested."""

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
SalesStep = Literal[
    "choose",
    "variant",
    "quantity",
    "fulfilment",
    "area",
    "method",
    "confirm",
    "paying",
    "paused",
    "restock",
]
"""Where a sale stands between turns (journeys.flows.sales and checkout)."""
PaymentStatus = Literal["pending", "paid", "failed", "cancelled", "timeout", "unknown"]
ConversationStatus = Literal["ai_active", "waiting", "agent_active"]
"""The open statuses (tulia.conversations.models.Conversation.OPEN_STATUSES)."""

INTENTS: tuple[str, ...] = get_args(Intent)
LANGS: tuple[str, ...] = get_args(Lang)
GOVERNOR_CLASSES: tuple[str, ...] = get_args(GovernorClass)


def follow_path(path: list[str], steps: list[str]) -> list[str]:
    """The `graph_path` reducer: a node returns the steps it adds, never the whole path.

    A journey subgraph shares this schema, so when it ends it hands its parent the whole
    path it saw (the parent's path plus its own steps); that update already starts with
    the parent's path and replaces it instead of being appended a second time. A new
    turn starts from `TurnScratch` defaults, so no node has to clear the path."""
    if path and steps[: len(path)] == path:
        return steps
    return [*path, *steps]


PartT = TypeVar("PartT", bound=Mapping[str, object])


def merge_part(stored: PartT, update: PartT) -> PartT:
    """The reducer of every nested part: the fields a node returns replace the stored
    ones, the others are kept (shallow: a field's value is replaced whole, never merged).

    Every part always holds all its fields (`DEFAULTS`, `upgrade`), so clearing a field
    is writing its default (`{"sale": {"pending_item": None}}`) and resetting a part is
    writing `fresh(part)`, which replaces every field."""
    return cast(PartT, {**stored, **update})


# The values stored inside the parts, as JSON (what the flows write; mypy checks the keys).
ActionKind = Literal["return", "exchange", "refund", "cancel"]


class ItemRef(TypedDict):
    """A catalog item named in the state: the options shown, a sold-out item."""

    item_id: int
    name: str


class VariantChoice(TypedDict):
    variant_id: int
    label: str
    """The value of the attribute the variants differ in ("42"), else the SKU."""


class PendingItem(ItemRef, total=False):
    """The item being configured (journeys.flows.checkout); a sold-out item waiting for
    the restock answer carries only its id and name."""

    attribute: str
    choices: list[VariantChoice]
    variant_id: int | None
    variant_label: str | None
    source: str
    """The shop page's source tag when the item was picked by its code."""


class OrderLine(TypedDict):
    """One line as order_create takes it."""

    item_id: int
    quantity: int
    variant_id: NotRequired[int]


class CartLine(OrderLine):
    name: str
    variant: str | None


class OrderTotals(TypedDict, total=False):
    """The open order's figures from its latest tool output ({} without an order)."""

    reference: str
    total: str
    """A decimal as text, as the tool's JSON gives it."""
    amount_whole_kes: int
    currency: str


class CatalogFilters(TypedDict, total=False):
    """The last search's filters (journeys.flows.parse.wanted); amounts as text."""

    min_price: str
    max_price: str
    size: str


class Zone(TypedDict):
    """fulfilment_get_options' zone as JSON."""

    name: str
    fee: str
    areas: list[str]
    courier: bool


class DeliveryOptions(TypedDict, total=False):
    zones: list[Zone]
    pickup: str | None
    hours: str | None


class ActionLine(TypedDict):
    name: str
    sku: str


class OrderAction(TypedDict):
    """A return, exchange, refund or cancellation under way (journeys.flows.order_actions)."""

    kind: ActionKind
    orders: list[str]
    """The references listed for the customer to pick from by number."""
    reference: str | None
    lines: NotRequired[list[ActionLine]]


class KbSnippet(TypedDict):
    """kb_retrieve's hit as JSON."""

    title: str
    section: str
    document_type: str
    score: float
    text: str
    chunk_id: int


class OpeningWindow(TypedDict):
    opens: str
    closes: str


class HandoffJSON(TypedDict, total=False):
    """tenants.config.HandoffSettings as JSON (journeys.flows.escalation validates it)."""

    business_hours: dict[str, list[OpeningWindow]]
    keyword_triggers: list[str]
    agent_capacity: int
    open_ticket_after_hours: bool


class Identity(TypedDict, total=False):
    tenant_id: str
    conversation_id: str
    request_id: str
    customer_id: str | None
    phone_e164: str | None


class ShopPart(TypedDict, total=False):
    """The tenant's persona and rules, read through its tools (journeys.flows.turn)."""

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
    handoff: HandoffJSON
    escalation_rules: dict[str, Any]
    shop_version: str | None
    """The tenant row's `updated_at` when the persona fields were last read: the persona
    tool is asked again only when the shop's settings changed (journeys.flows.turn)."""


class CustomerPart(TypedDict, total=False):
    customer_language_pref: Lang | None
    marketing_opt_in: bool | None
    notification_prefs: dict[str, bool]


class LastTurn(TypedDict, total=False):
    """What the last turn understood and answered; kept as its record (the console and
    the tests read it), rewritten by every turn."""

    inbound_text: str
    """The sanitised customer message of this turn."""
    intent: Intent
    intent_confidence: float
    journey: Journey
    journey_step: str | None
    """Where in its journey the conversation stands (handoff tickets carry it)."""
    response_language: Lang
    language_confidence: float
    detected_language: Lang | None
    """What language_policy detected, before the tenant/customer rule picked the reply."""
    last_language: Lang | None
    """The reply language of the previous turn, kept when detection is unsure."""
    consent_command: str | None
    """"opt_out" when this turn was a STOP-style command, else None."""
    response_text: str | None
    awaiting_answer: bool
    """The bot's last message asked a yes/no question, so a bare "sitaki" means "no"."""
    llm_calls: int
    """LLM calls made during the current turn (reset by `begin`)."""
    graph_path: Annotated[list[str], follow_path]
    """Nodes this turn went through, in order (shows every turn ran the graph)."""


class GovernancePart(TypedDict, total=False):
    """state["governance"]: the governor's verdict on this turn."""

    classification: GovernorClass
    confidence: float
    action: str | None
    """What the governor decided for this turn (journeys.nlu.governor.Action)."""


class GovernorCounts(TypedDict, total=False):
    """The governor's running counts. Flat, not in state["governance"], because
    `journeys.nlu.governor.GovernorCounters.from_state` reads them from the top level
    (journeys/nlu is being rebuilt separately; nest them when it reads the part)."""

    casual_turns: int
    spam_turns: int
    abuse_turns: int


class SalePart(TypedDict, total=False):
    """state["sale"]: the last catalog search, the item being configured, the step."""

    query: str | None
    """The last catalog search's words."""
    filters: CatalogFilters
    results: list[ItemRef]
    """The options last shown, in their numbered order."""
    total_estimate: int | None
    selected_item_ids: list[str]
    step: SalesStep | None
    """Where the sale stands between turns; None when no sale is under way. Kept while
    the customer changes topic."""
    pending_item: PendingItem | None
    rejections: int


class CheckoutPart(TypedDict, total=False):
    cart: list[CartLine]
    order_id: str | None
    order_totals: OrderTotals
    payment_methods: list[str]
    payment_method: str | None
    payment_request_id: str | None
    payment_status: PaymentStatus | None
    payment_attempt: int
    """Payment attempts on the open order: a retry asks the provider for a new one."""
    quoted_amount_kes: int | None
    """The total the last confirmation question showed; payment uses exactly this."""
    quoted_at: float | None
    """When the pending payment-method or amount question was asked: a late answer to
    it is re-quoted, never executed."""
    delivery_options: DeliveryOptions | None
    """The shop's delivery zones and pickup place while the sale asks how the goods
    reach the customer (journeys.flows.delivery)."""
    pay_phone: str | None
    """The phone the M-Pesa prompt goes to when the customer named another one."""
    hinted_codes: list[str]
    """Coupon codes the bot suggested for the open order: sent back alone, applied."""


class SupportPart(TypedDict, total=False):
    """state["support"]: the knowledge-base answers, an order action, clarifications."""

    snippets: list[KbSnippet]
    """The passages the last support answer used."""
    misses: int
    """Support questions in a row the shop's documents did not answer."""
    order_action: OrderAction | None
    """A return, refund or cancellation under way: kind, listed references, the order
    (journeys.flows.order_actions)."""
    clarify_text: str | None
    """The message a clarifying question was about; a "yes" to the question replays it."""
    clarify_intent: Intent | None
    clarify_loops: int
    """Clarifying questions asked in a row, each after a message the bot could not place;
    one more such message completes that many clarification loops (SPEC §5.5)."""


class EscalationPart(TypedDict, total=False):
    """state["escalation"]: a handoff to a person, and the counts that lead to one."""

    required: bool
    """A handoff ticket was opened for this conversation."""
    category: str | None
    """The handoff ticket's category while this turn hands over, else None."""
    reason: str | None
    ticket_id: str | None
    frustrated_turns: int
    tool_error_streak: int
    waiting_notice_at: float | None
    """When the waiting customer was last told the queue or the opening hours."""
    transcript: list[str]
    """The last few lines of the conversation, for the handoff ticket summary."""


class SessionPart(TypedDict, total=False):
    state_version: int
    turn_count: int
    last_seen_at: float | None
    """When the previous message arrived (tulia.clock seconds): a long silence drops
    the pending question (journeys.flows.stale)."""


class Parts(TypedDict, total=False):
    """The nested parts: a node returns only the fields it changes (`{"governance":
    {"action": "proceed"}}`) and `merge_part` merges them into the stored part."""

    governance: Annotated[GovernancePart, merge_part]
    support: Annotated[SupportPart, merge_part]
    escalation: Annotated[EscalationPart, merge_part]
    sale: Annotated[SalePart, merge_part]


class PersistedState(
    Identity,
    ShopPart,
    CustomerPart,
    LastTurn,
    Parts,
    GovernorCounts,
    CheckoutPart,
    SessionPart,
    total=False,
):
    """Everything the gateway stores between turns."""


class TurnScratch(TypedDict, total=False):
    """Written fresh every turn and never stored."""

    inbound_kind: InboundKind
    """"text" or what else arrived (photo, voice note...): non-text gets a polite note."""
    conversation_status: ConversationStatus
    """The conversation's status as the turn found it: with a person, the journeys are
    skipped."""
    turn_facts: list[Any]
    """Every tool output of this turn: the reply guard checks amounts against them."""
    message_reading: dict[str, object] | None
    """This turn's one LLM reading of the message (journeys.llm.schemas.MessageReading as
    a dict; {} when the call failed; None when none was asked)."""


class ConversationState(PersistedState, TurnScratch, total=False):
    """The graph's state: what is stored plus this turn's scratch."""


SCRATCH_KEYS = frozenset(TurnScratch.__annotations__)
PERSISTED_KEYS = frozenset(PersistedState.__annotations__)

# The one place defaults live: a key missing from a stored state takes its value here.
DEFAULTS: dict[str, Any] = {
    "customer_id": None,
    "phone_e164": None,
    "tenant_name": None,
    "bot_name": None,
    "bot_intro": None,
    "tone_style": "friendly_concise",
    "default_language": "en",
    "allowed_languages": ["en", "sw", "sheng"],
    "max_chattiness_level": 2,
    "catalog_link_base": None,
    "payments_enabled": {},
    "compliance": {},
    "handoff": {},
    "escalation_rules": {},
    "shop_version": None,
    "customer_language_pref": None,
    "marketing_opt_in": None,
    "notification_prefs": {},
    "inbound_text": "",
    "intent": "unknown",
    "intent_confidence": 0.0,
    "journey": "unknown",
    "journey_step": None,
    "response_language": "en",
    "language_confidence": 0.0,
    "detected_language": None,
    "last_language": None,
    "consent_command": None,
    "response_text": None,
    "awaiting_answer": False,
    "llm_calls": 0,
    "graph_path": [],
    "governance": {"classification": "business", "confidence": 0.0, "action": None},
    "casual_turns": 0,
    "spam_turns": 0,
    "abuse_turns": 0,
    "sale": {
        "query": None,
        "filters": {},
        "results": [],
        "total_estimate": None,
        "selected_item_ids": [],
        "step": None,
        "pending_item": None,
        "rejections": 0,
    },
    "cart": [],
    "order_id": None,
    "order_totals": {},
    "payment_methods": [],
    "payment_method": None,
    "payment_request_id": None,
    "payment_status": None,
    "payment_attempt": 0,
    "quoted_amount_kes": None,
    "quoted_at": None,
    "delivery_options": None,
    "pay_phone": None,
    "hinted_codes": [],
    "support": {
        "snippets": [],
        "misses": 0,
        "order_action": None,
        "clarify_text": None,
        "clarify_intent": None,
        "clarify_loops": 0,
    },
    "escalation": {
        "required": False,
        "category": None,
        "reason": None,
        "ticket_id": None,
        "frustrated_turns": 0,
        "tool_error_streak": 0,
        "waiting_notice_at": None,
        "transcript": [],
    },
    "state_version": STATE_VERSION,
    "turn_count": 0,
    "last_seen_at": None,
    "inbound_kind": "text",
    "conversation_status": "ai_active",
    "turn_facts": [],
    "message_reading": None,
}


NESTED: frozenset[str] = frozenset(Parts.__annotations__)
PART_FIELDS: dict[str, frozenset[str]] = {name: frozenset(DEFAULTS[name]) for name in NESTED}


def fresh(part: str) -> dict[str, Any]:
    """A part at its defaults: written whole, it resets the part (merge_part replaces
    every field)."""
    whole: dict[str, Any] = deepcopy(DEFAULTS[part])
    return whole


def combine(*updates: Mapping[str, Any]) -> dict[str, Any]:
    """Several partial updates as one, in order: as LangGraph would apply them, a later
    nested part merged into an earlier one rather than replacing it."""
    merged: dict[str, Any] = {}
    for update in updates:
        for key, value in update.items():
            if key in NESTED and key in merged:
                merged[key] = merge_part(merged[key], value)
            else:
                merged[key] = value
    return merged


def new_state(*, tenant_id: str, conversation_id: str, request_id: str) -> ConversationState:
    """A fresh state: identity is required, everything else starts at its default."""
    state = deepcopy(DEFAULTS)  # no two states share a list or a dict
    state.update(tenant_id=tenant_id, conversation_id=conversation_id, request_id=request_id)
    return ConversationState(**state)  # type: ignore[typeddict-item]


def stored(state: dict[str, Any]) -> dict[str, Any]:
    """What the gateway saves: the persisted parts only, scratch left behind."""
    return {key: value for key, value in state.items() if key not in SCRATCH_KEYS}
