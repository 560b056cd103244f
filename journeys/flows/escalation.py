"""Escalation (SPEC §5.5): spot the triggers, open the handoff ticket, tell the customer.

`detect_escalation` runs after the governor on every business turn and decides whether
this turn goes to a person; `escalate` opens the ticket through handoff_create_ticket
with the context a person needs (Property 12) and replies with the tool's honest
message about hours and waiting. `needs_handoff_after` catches the triggers a journey
itself produces (two consecutive tool errors).
"""

from __future__ import annotations

from typing import Any

from journeys.context import RunContext
from journeys.flows import lexicon, parse
from journeys.flows.common import FlowTurn
from journeys.flows.sales import answers_step
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD, journey_of, route
from journeys.state import EscalationPart, Journey
from journeys.templates.text_nodes import handoff_message
from journeys.tooling import HANDOFF_CREATE_TICKET
from tenants.config import EscalationRules, HandoffSettings
from tulia import clock
from tulia.handoff.keywords import match_trigger
from tulia.handoff.tools.handoff_create_ticket import HandoffCreateTicketOutput

SUMMARY_LINES = 8
MAX_SUMMARY = 1900
# A waiting customer hears where they stand at most this often, however much they write.
WAITING_NOTICE_SECONDS = 30 * 60
WITH_A_PERSON = ("waiting", "agent_active")
APOLOGISED = "handoff.offered"


def rules(state: FlowState) -> EscalationRules:
    try:
        return EscalationRules.model_validate(state.get("escalation_rules") or {})
    except ValueError:  # a bad tenant setting must not stop escalation: use the defaults
        return EscalationRules()


def _keyword(state: FlowState) -> str | None:
    try:
        settings = HandoffSettings.model_validate(state.get("handoff") or {})
    except ValueError:
        settings = HandoffSettings()
    found = match_trigger(state.get("inbound_text", ""), settings)
    return found.keyword if found else None


def _sensitive(text: str, topics: list[str]) -> str | None:
    for topic in topics:
        if parse.has(text, lexicon.SENSITIVE.get(topic, (topic,))):
            return topic
    return None


def _explicit(state: FlowState, policy: EscalationRules) -> tuple[str, str] | None:
    """Triggers read from this message alone, strongest first."""
    text, intent = state.get("inbound_text", ""), state.get("intent")
    confident = state.get("intent_confidence", 0.0) >= INTENT_ROUTE_THRESHOLD
    word = _keyword(state) if policy.on_human_request else None
    topic = _sensitive(text, policy.sensitive_topics) if policy.on_sensitive_content else None
    checks = (
        (policy.on_human_request and intent == "human_request" and confident,
         "human_request", "customer asked for a person"),
        (word is not None, "keyword", f'tenant trigger word "{word}"'),
        (policy.on_payment_dispute and parse.has(text, lexicon.DISPUTE),
         "payment_dispute", "customer disputes a payment"),
        (topic is not None, "sensitive", f"{topic} matter"),
    )  # fmt: skip
    return next(((category, reason) for hit, category, reason in checks if hit), None)


# Where the bot offered a person, and what the ticket says when the customer says yes.
OFFERS = {
    "support.offer_handoff": (
        "missing_info",
        "customer accepted a person after an unanswered question",
    ),
    APOLOGISED: ("frustration", "customer accepted a person after a complaint"),
}


def _accepted_offer(state: FlowState) -> tuple[str, str] | None:
    """The bot offered a person (an unanswered question, a complaint); "yes" takes it."""
    offered = OFFERS.get(str(state.get("journey_step")))
    return offered if offered and parse.is_yes(state.get("inbound_text", "")) else None


def frustrated_now(state: FlowState) -> bool:
    """This message complained (detect_escalation counted it) and opened no ticket."""
    return state["escalation"]["frustrated_turns"] > 0 and not state["escalation"]["category"]


def apologise(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """A complaint with nothing else to answer: sorry, and a person on offer (SPEC §5.5
    opens the ticket itself if the frustration goes on)."""
    turn = FlowTurn(state, ctx)
    turn.set(journey_step=APOLOGISED, awaiting_answer=True)
    return turn.reply(turn.say("frustration_offer"))


def detect_escalation(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    policy = rules(state)
    frustrated = parse.has(state.get("inbound_text", ""), lexicon.FRUSTRATION)
    streak = state["escalation"]["frustrated_turns"] + 1 if frustrated else 0
    base = route(state)
    loops, asked = _clarifications(state, base)
    found = _explicit(state, policy)
    if found is None:
        found = _accepted_offer(state)
    if found is None and streak >= policy.frustration_turns:
        found = ("frustration", f"frustrated for {streak} turns without a resolution")
    if found is None and loops >= policy.max_clarification_loops:
        found = ("missing_info", f"{loops} clarification loops without understanding")
    escalation = EscalationPart(frustrated_turns=streak)
    if found is not None:
        escalation["category"], escalation["reason"] = found
    update = FlowState(escalation=escalation, support={"clarify_loops": asked})
    if found is not None:
        update["journey"] = _ticket_journey(state, found[0], base)
    return update


def _clarifications(state: FlowState, base: str) -> tuple[int, int]:
    """(clarification loops this message completes, clarifying questions asked in a row).

    A loop is a clarifying question (the clarify band's question or the unknown
    handler's help line) answered by another message the bot cannot place, so the first
    such message only makes the bot ask. "ok", "sawa", "asante" after an answer are not
    confusion: they neither ask nor complete a loop, and leave the count as it was.
    """
    asked = state["support"]["clarify_loops"]
    if base not in ("clarify", "unknown") or answers_step(state):
        return 0, 0
    if parse.acknowledges(state.get("inbound_text", "")):
        return 0, asked
    return asked, asked + 1


def _ticket_journey(state: FlowState, category: str, base: str) -> Journey:
    """The journey the customer was in (a sale interrupted by "agent!" is a sale)."""
    if category in ("refund", "return"):
        return "orders"
    if state["sale"]["step"]:
        return "sales"
    current = state.get("journey", "unknown")
    if current in ("unknown", "governance") and base not in ("consent", "governance"):
        return journey_of(base)  # type: ignore[arg-type]
    return current


def needs_handoff_after(state: FlowState) -> bool:
    """Two consecutive tool errors (tenant-configurable) hand over to a person."""
    if state["escalation"]["category"]:
        return False
    return state["escalation"]["tool_error_streak"] >= rules(state).max_consecutive_tool_errors


def summary(state: FlowState) -> str:
    """What the agent reads first: who, where in which journey, the order, the last lines."""
    order = (state.get("order_totals") or {}).get("reference") or "none"
    head = (
        f"customer {state.get('customer_id')} · journey {state.get('journey')} · "
        f"step {state['sale']['step'] or state.get('journey_step') or '-'} · order {order}"
    )
    lines = [
        *state["escalation"]["transcript"][-SUMMARY_LINES:],
        f"customer: {state.get('inbound_text', '')}",
    ]
    return "\n".join([head, *lines])[:MAX_SUMMARY]


def _ticket_args(state: FlowState, category: str, reason: str) -> dict[str, Any]:
    step = state["sale"]["step"] or state.get("journey_step") or "start"
    return {
        "reason": reason[:300],
        "category": category,
        "journey": str(state.get("journey") or "unknown")[:40],
        "step": str(step)[:60],
        "transcript_summary": summary(state),
        # This turn's language: the conversation's stored state still has last turn's.
        "language": _language(state),
    }


def _language(state: FlowState) -> str | None:
    language = state.get("response_language")
    return language if language in ("en", "sw", "sheng") else None


def escalate(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    category = state["escalation"]["category"]
    reason = state["escalation"]["reason"]
    if not category:  # reached from a journey's failures or the engine's handoff route
        broken = (
            state["escalation"]["tool_error_streak"] >= rules(state).max_consecutive_tool_errors
        )
        category = "tool_errors" if broken else "human_request"
        reason = "repeated tool errors" if broken else "customer asked for a person"
    turn.set(escalation={"category": category, "reason": reason})
    called = turn.tool(
        HANDOFF_CREATE_TICKET, customer=False, **_ticket_args(state, category, reason or category)
    )
    if not called.ok:
        return turn.reply(_joined(state, turn.say("handoff_failed")))
    out = called.output
    turn.set(journey_step="handoff")
    turn.set(
        escalation={"required": True, "ticket_id": _ticket(out), "waiting_notice_at": clock.now()}
    )
    text = out.message or handoff_message(
        turn.key, turn.language, ticket=_ticket(out) or "-", team_available=True
    )
    return turn.reply(_joined(state, text))


def _ticket(out: HandoffCreateTicketOutput) -> str | None:
    return str(out.ticket_id) if out.ticket_id is not None else None


def _joined(state: FlowState, text: str) -> str:
    """After a failing journey step its apology comes first, then the handoff news."""
    earlier = state.get("response_text")
    return f"{earlier}\n\n{text}" if earlier else text


def with_a_person(state: FlowState) -> bool:
    return state.get("conversation_status") in WITH_A_PERSON


def while_with_a_person(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Handed over, the bot steps back: no journey answers. A waiting customer is told
    the queue position or when the team is back, once per WAITING_NOTICE_SECONDS; a
    conversation an agent is in gets nothing at all (the agent reads the message)."""
    turn = FlowTurn(state, ctx)
    last = state["escalation"]["waiting_notice_at"]
    due = last is None or clock.now() - float(last) >= WAITING_NOTICE_SECONDS
    # A retried turn whose first run opened the ticket lands here too: it finds that
    # ticket and words it the same way, so the customer still hears about the handoff.
    if state.get("conversation_status") != "waiting" or not due:
        return turn.reply(None)
    # Idempotent per open conversation: this finds the ticket and words where it stands.
    called = turn.tool(
        HANDOFF_CREATE_TICKET,
        customer=False,
        reason="customer wrote again while waiting",
        category="human_request",
        language=_language(state),
    )
    if not called.ok or called.output.ticket_id is None:
        return turn.reply(None)
    turn.set(escalation={"waiting_notice_at": clock.now()})
    return turn.reply(called.output.message)
