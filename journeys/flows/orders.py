"""Orders journey: where an order stands and whether its payment arrived.

Both answers are read from order_get_status (the payment from the order's record,
Property 7), with the time of the latest lifecycle step and the shipping note. The
order is the one named in the message, else the one from this conversation; without
either the bot asks for the reference. Returns, exchanges, refunds and cancellations
are this journey's "action" step (journeys.flows.order_actions).
"""

from __future__ import annotations

from django.utils import timezone

from journeys.context import RunContext
from journeys.flows import order_actions, outcome, parse
from journeys.flows.common import ORDER_STATUS_WORDS, FlowTurn
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.templates.text_nodes import order_status_response
from journeys.tooling import ORDER_GET_STATUS
from tools.order_get_status import OrderGetStatusOutput
from tulia.text import label as text_label

REFERENCE_EXAMPLE = "AB-CD2345"


def route(state: FlowState) -> str:
    """A return/cancel (or its pending question); else the status by the reference in
    the message, else the conversation's order, else ask."""
    if order_actions.answers_action(state) or order_actions.wanted_action(state):
        return "action"
    if parse.order_reference(state.get("inbound_text", "")) or state.get("order_id"):
        return "status"
    return "ask_reference"


def ask_reference_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    turn.set(journey="orders", journey_step="orders.ask_reference")
    return turn.reply(turn.say("ask_reference", example=REFERENCE_EXAMPLE))


def status_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    turn.set(journey="orders", journey_step="orders.status")
    reference = parse.order_reference(turn.text)
    if reference:
        found = turn.tool(ORDER_GET_STATUS, reference=reference, with_payment=True)
    else:
        found = turn.tool(
            ORDER_GET_STATUS, order_id=int(state.get("order_id") or 0), with_payment=True
        )
    if found.ok:
        return _report(turn, found.output)
    if found.error_code in ("not_found", "invalid_input"):
        text = order_status_response(
            turn.key, turn.language, reference=None, order_status=None, payment_status=None
        )
        return turn.reply(text)
    return turn.reply(turn.say("tool_failed"))


STEPS = {
    "status": status_step,
    "ask_reference": ask_reference_step,
    "action": order_actions.action_step,
}


def orders(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """The whole journey as one call (the graph runs it as a subgraph of these steps)."""
    return STEPS[route(state)](state, ctx, deps)


def _report(turn: FlowTurn, status: OrderGetStatusOutput) -> FlowState:
    order = status.order
    ours = str(order.order_id) == turn.get("order_id")
    if status.paid and ours:
        turn.set(payment_status="paid", cart=[], sale={"step": None})
    paid = outcome.payment_state(turn, status)
    if paid in outcome.UNPAID_ENDINGS:
        # The conversation's own order gets the retry offer; another one just the facts.
        return turn.reply(outcome.unpaid_reply(turn, order.reference, paid, ours=ours))
    answer = outcome.payment_answer(turn, status, paid)
    if answer is not None:
        return turn.reply(answer)
    text = order_status_response(
        turn.key,
        turn.language,
        reference=order.reference,
        order_status=ORDER_STATUS_WORDS.get(order.status, "unknown"),
        payment_status=paid,
    )
    return turn.reply(" ".join([text, *_progress(turn.language, status)]))


def _progress(language: str, status: OrderGetStatusOutput) -> list[str]:
    """When the latest step happened, and the rider/courier note once shipped."""
    lines = []
    if status.status_at:
        when = timezone.localtime(status.status_at)
        since = text_label("reply.order_update", "since", language)
        lines.append(since.format(when=when.strftime("%d %b %H:%M")))
    if status.tracking_note:
        note = status.tracking_note
        lines.append(text_label("reply.order_update", "tracking", language).format(note=note))
    return lines
