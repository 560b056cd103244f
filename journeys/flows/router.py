"""Where a turn goes, as pure functions of the state (the graph's conditional edges)."""

from __future__ import annotations

from journeys.flows import lexicon, order_actions, parse
from journeys.flows.clarify import confirms_clarification
from journeys.flows.escalation import needs_handoff_after, rules
from journeys.flows.sales import answers_step, picks_by_code
from journeys.flows.state import FlowState
from journeys.nodes.routing import route


def after_begin(state: FlowState) -> str:
    return "non_text" if state.get("inbound_kind", "text") != "text" else "text"


def after_consent(state: FlowState) -> str:
    return "consent" if state.get("consent_command") else "classify"


def after_governance(state: FlowState) -> str:
    """Governance first, then escalation, then an answer to the pending sales question."""
    if state.get("governor_action") not in (None, "proceed"):
        return "governance"
    if state.get("escalation_category"):
        return "escalate"
    if confirms_clarification(state):
        return "recall"
    return _answered(state) or _journey(state)


def _answered(state: FlowState) -> str | None:
    """A pending question this message answers: a return/cancel's order or reason (it
    was asked last), else the sale's; else a return or cancel asked for outright."""
    if order_actions.answers_action(state):
        return "orders"
    if answers_step(state) or wants_catalog(state) or picks_by_code(state):
        return "sales"
    return "orders" if order_actions.wanted_action(state) else None


def _journey(state: FlowState) -> str:
    base = route(state)
    if base == "handoff":
        return "escalate" if rules(state).on_human_request else "unknown"
    return "prefs" if base == "consent" else base


def wants_catalog(state: FlowState) -> bool:
    """ "See all" has no intent of its own; it always means the catalog (SPEC §5.2)."""
    return parse.short_answer(state.get("inbound_text", ""), lexicon.SEE_ALL, 6)


def after_journey(state: FlowState) -> str:
    """A journey may itself call for a person (no answer twice, repeated tool errors)."""
    if state.get("escalation_category") or needs_handoff_after(state):
        return "escalate"
    return "finish"
