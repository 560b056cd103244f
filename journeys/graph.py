"""The conversation graph: only wiring (SPEC §5.1, seed 002 flow diagram).

begin → load_context → consent_check → (with a person: only the waiting notice) →
intent → language → governor → escalation check → one journey (sales / support /
orders / offers / prefs, each a compiled subgraph of its steps: journeys/subgraphs.py),
a governance, clarify or unknown reply, or the handoff → finish. Nodes are the
engine's and the journeys' `(state, ctx, deps)` functions; `subgraphs.node` adapts
them to LangGraph's runtime context and records each step in `graph_path`. Compiled
once per process.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import pairwise

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from journeys.flows import clarify, escalation, prefs, replies, router, sales, turn, understand
from journeys.flows.state import FlowState
from journeys.subgraphs import GraphContext, NodeFn, compiled_journeys, node

__all__ = ["GraphContext", "build", "compiled"]

NODES: dict[str, NodeFn] = {
    "begin": turn.begin,
    "load_context": turn.load_context,
    "non_text": turn.non_text_reply,
    "consent_check": understand.consent_check,
    "record_consent": prefs.record_consent,
    "intent_classify": understand.intent_classify,
    "language_policy": understand.language_policy,
    "keep_language": turn.keep_language,
    "governor_spam_casual": understand.governor_spam_casual,
    "detect_escalation": escalation.detect_escalation,
    "governance": replies.governance_response,
    "clarify": clarify.clarify,
    "recall": clarify.recall,
    "unknown": sales.unknown_or_catalog,
    "escalate": escalation.escalate,
    "with_person": escalation.while_with_a_person,
    "apologise": escalation.apologise,
    "finish": turn.finish,
}
JOURNEYS = ("sales", "support", "orders", "offers", "prefs")
CLASSIFIERS = ("intent_classify", "language_policy", "keep_language", "governor_spam_casual")


def build() -> StateGraph[FlowState, GraphContext, FlowState, FlowState]:
    graph: StateGraph[FlowState, GraphContext, FlowState, FlowState] = StateGraph(
        FlowState, context_schema=GraphContext
    )
    for name, fn in NODES.items():
        graph.add_node(name, node(name, fn))  # type: ignore[call-overload]
    for name, subgraph in compiled_journeys().items():
        graph.add_node(name, subgraph)
    graph.add_edge(START, "begin")
    graph.add_edge("begin", "load_context")
    graph.add_conditional_edges(
        "load_context",
        router.after_begin,
        {"non_text": "non_text", "text": "consent_check", "with_person": "with_person"},
    )
    graph.add_conditional_edges(
        "consent_check",
        router.after_consent,
        {"consent": "record_consent", "classify": "intent_classify", "with_person": "with_person"},
    )
    for current, following in pairwise(CLASSIFIERS):
        graph.add_edge(current, following)
    graph.add_edge("governor_spam_casual", "detect_escalation")
    targets: dict[Hashable, str] = {
        name: name
        for name in (*JOURNEYS, *("governance", "clarify", "unknown", "escalate", "recall"))
    }
    targets["apologise"] = "apologise"
    graph.add_conditional_edges("detect_escalation", router.after_governance, targets)
    # A "yes" to a clarifying question replays the clarified message through the router.
    graph.add_conditional_edges("recall", router.after_governance, targets)
    for journey in JOURNEYS:
        graph.add_conditional_edges(
            journey, router.after_journey, {"escalate": "escalate", "finish": "finish"}
        )
    replies = ("non_text", "record_consent", "governance", "clarify", "unknown", "escalate")
    for reply in (*replies, "with_person", "apologise"):
        graph.add_edge(reply, "finish")
    graph.add_edge("finish", END)
    return graph


@cache
def compiled() -> CompiledStateGraph[FlowState, GraphContext, FlowState, FlowState]:
    return build().compile()
