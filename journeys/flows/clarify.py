"""The clarify band (intent confidence 0.50-0.70) with a memory.

The engine's clarify reply asks "is this about finding a product?"; a plain "yes" to
that must continue with the message it asked about, so the question remembers the
message and its best-guess intent, and `recall` replays them with the intent
confirmed by the customer.
"""

from __future__ import annotations

from typing import cast

from journeys.context import RunContext
from journeys.flows import parse, replies
from journeys.flows.sales import catalog_answer
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps

SHOPPING_INTENTS = ("sales_discovery", "product_question")


def clarify(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    if state.get("intent") in SHOPPING_INTENTS:
        # "nataka sukuma wiki": the words the classifier doesn't know are often the shop's
        # own product names. If the catalog knows them, show them instead of asking
        # whether this is about finding a product.
        found = catalog_answer(state, ctx)
        if found is not None:
            return found
    update = replies.clarify_response(state, ctx, deps)
    update["journey_step"] = "clarify"
    update["clarify_text"] = state.get("inbound_text", "")
    update["clarify_intent"] = state.get("intent", "unknown")
    return update


def confirms_clarification(state: FlowState) -> bool:
    asked = state.get("journey_step") == "clarify" and state.get("clarify_text")
    return bool(asked) and parse.is_yes(state.get("inbound_text", ""))


def recall(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Replay the clarified message as if its intent had been certain."""
    return cast(
        FlowState,
        {
            "inbound_text": state.get("clarify_text") or "",
            "intent": state.get("clarify_intent") or "unknown",
            "intent_confidence": 1.0,
            "journey_step": None,
            "clarify_text": None,
            "clarify_intent": None,
            "clarify_loops": 0,
        },
    )
