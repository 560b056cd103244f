"""Where a turn goes after governance, as pure functions, and the SPEC §5.2
thresholds the engine routes by, each defined here once (Django-free, so the NLU
benchmarks read them too). The language-switch threshold is the language policy's
own (journeys.nlu.language.SWITCH_THRESHOLD): only that policy applies it."""

from __future__ import annotations

from typing import Literal

from journeys.state import ConversationState, Journey

INTENT_ROUTE_THRESHOLD = 0.70
"""Intent confidence at or above which the turn goes to the intent's journey."""
INTENT_CLARIFY_THRESHOLD = 0.50
"""Below the route threshold but at or above this: ask what the customer meant."""
GOVERNOR_THRESHOLD = 0.70
"""Below this the governor's verdict is asked of the LLM, when one is configured."""

Band = Literal["route", "clarify", "unknown"]
Route = Literal[
    "consent", "governance", "clarify", "unknown", "handoff",
    "sales", "support", "orders", "offers", "prefs",
]  # fmt: skip

_INTENT_ROUTES: dict[str, Route] = {
    "sales_discovery": "sales",
    "product_question": "sales",
    "support_question": "support",
    "order_status": "orders",
    "discounts_offers": "offers",
    "preferences_consent": "prefs",
    "payment_help": "orders",
    "human_request": "handoff",
    "spam_casual": "unknown",  # the governor said business: we don't know what it is
    "unknown": "unknown",
}
_ROUTE_JOURNEYS: dict[Route, Journey] = {
    "consent": "prefs",
    "governance": "governance",
    "clarify": "unknown",
    "unknown": "unknown",
    "handoff": "support",
    "sales": "sales",
    "support": "support",
    "orders": "orders",
    "offers": "offers",
    "prefs": "prefs",
}


def intent_band(confidence: float) -> Band:
    """≥ 0.70 route, 0.50-0.70 clarify, < 0.50 unknown (0.70 itself routes)."""
    if confidence >= INTENT_ROUTE_THRESHOLD:
        return "route"
    if confidence >= INTENT_CLARIFY_THRESHOLD:
        return "clarify"
    return "unknown"


def _awaiting_payment(state: ConversationState) -> bool:
    return bool(state.get("order_id")) and state.get("payment_status") not in ("paid",)


def route(state: ConversationState) -> Route:
    if state.get("consent_command"):
        return "consent"
    if state["governance"]["action"] not in (None, "proceed"):
        return "governance"
    intent = state.get("intent", "unknown")
    band = intent_band(state.get("intent_confidence", 0.0))
    if band != "route" or intent == "unknown":
        return "clarify" if band == "clarify" and intent != "unknown" else "unknown"
    if intent == "payment_help" and _awaiting_payment(state):
        return "sales"  # "how do I pay?" mid-checkout continues the sale
    return _INTENT_ROUTES[intent]


def journey_of(route_name: Route) -> Journey:
    return _ROUTE_JOURNEYS[route_name]
