"""The clarify band (intent confidence 0.50-0.70) with a memory.

The engine's clarify reply asks "is this about finding a product?"; a plain "yes" to
that must continue with the message it asked about, so the question remembers the
message and its best-guess intent, and `recall` replays them with the intent
confirmed by the customer.
"""

from __future__ import annotations

from journeys.context import RunContext
from journeys.flows import parse, replies
from journeys.flows.sales import catalog_answer
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.state import combine

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
    asked = {"clarify_text": state["inbound_text"], "clarify_intent": state["intent"]}
    return FlowState(**combine(update, {"support": asked}))  # type: ignore[typeddict-item]


def confirms_clarification(state: FlowState) -> bool:
    asked = state.get("journey_step") == "clarify" and state["support"]["clarify_text"]
    return bool(asked) and parse.is_yes(state.get("inbound_text", ""))


def recall(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Replay the clarified message as if its intent had been certain."""
    support = state["support"]
    return FlowState(
        inbound_text=support["clarify_text"] or "",
        intent=support["clarify_intent"] or "unknown",
        intent_confidence=1.0,
        journey_step=None,
        support={"clarify_text": None, "clarify_intent": None, "clarify_loops": 0},
    )
