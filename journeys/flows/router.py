"""Where a turn goes, as pure functions of the state (the graph's conditional edges)."""

from __future__ import annotations

from journeys.flows import lexicon, order_actions, parse
from journeys.flows.clarify import confirms_clarification
from journeys.flows.escalation import frustrated_now, needs_handoff_after, rules, with_a_person
from journeys.flows.offers import code_alone
from journeys.flows.sales import answers_step, picks_by_code
from journeys.flows.state import FlowState
from journeys.nodes.routing import route


def after_begin(state: FlowState) -> str:
    if state.get("inbound_kind", "text") == "text":
        return "text"
    return "with_person" if with_a_person(state) else "non_text"


def after_consent(state: FlowState) -> str:
    """STOP is honoured whoever has the conversation; with a person, nothing else runs."""
    if state.get("consent_command"):
        return "consent"
    return "with_person" if with_a_person(state) else "classify"


_NOTHING_TO_ANSWER = ("unknown", "clarify", "handoff", "governance")
# Governor actions that answer small talk; a complaint is not small talk.
_CHATTER = (None, "proceed", "casual_reply", "redirect")


def after_governance(state: FlowState) -> str:
    """Governance first, then escalation, then an answer to the pending sales question.

    A complaint the journeys have nothing to answer for ("this is useless") gets an
    apology and the offer of a person, never the small-talk greeting.
    """
    first = _before_journeys(state)
    if first is not None:
        return first
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
    if code_alone(state):
        return "offers"
    return "orders" if order_actions.wanted_action(state) else None


def _journey(state: FlowState) -> str:
    base = route(state)
    if base == "handoff":
        return "escalate" if rules(state).on_human_request else "unknown"
    return "prefs" if base == "consent" else base


def _before_journeys(state: FlowState) -> str | None:
    """Governance, escalation or an apology, when one of them takes this turn."""
    action = state["governance"]["action"]
    if action not in _CHATTER:
        return "governance"
    if state["escalation"]["category"]:
        return "escalate"
    if frustrated_now(state) and (action != "proceed" or route(state) in _NOTHING_TO_ANSWER):
        return "apologise"
    return "governance" if action not in (None, "proceed") else None


def wants_catalog(state: FlowState) -> bool:
    """ "See all" has no intent of its own; it always means the catalog (SPEC §5.2)."""
    return parse.short_answer(state.get("inbound_text", ""), lexicon.SEE_ALL, 6)


def after_journey(state: FlowState) -> str:
    """A journey may itself call for a person (no answer twice, repeated tool errors)."""
    if state["escalation"]["category"] or needs_handoff_after(state):
        return "escalate"
    return "finish"
