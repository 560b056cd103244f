"""Orders journey: where an order stands and whether its payment arrived.

Both answers are read from order_get_status (the payment from the order's record,
Property 7). The order is the one named in the message, else the one from this
conversation; without either the bot asks for the reference. Return and refund
requests never reach here: `escalation` opens a ticket for them.
"""

from __future__ import annotations

from journeys.context import RunContext
from journeys.flows import parse
from journeys.flows.common import ORDER_STATUS_WORDS, FlowTurn, payment_word
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.templates.text_nodes import order_status_response

REFERENCE_EXAMPLE = "AB-CD2345"


def orders(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    turn.set(journey="orders", journey_step="orders.status")
    reference = parse.order_reference(turn.text)
    if reference:
        found = turn.tool("order_get_status", reference=reference)
    elif order_id := state.get("order_id"):
        found = turn.tool("order_get_status", order_id=int(order_id))
    else:
        turn.set(journey_step="orders.ask_reference")
        return turn.reply(turn.say("ask_reference", example=REFERENCE_EXAMPLE))
    if found.ok:
        return _report(turn, found.output)
    if found.error_code in ("not_found", "invalid_input"):
        text = order_status_response(
            turn.key, turn.language, reference=None, order_status=None, payment_status=None
        )
        return turn.reply(text)
    return turn.reply(turn.say("tool_failed"))


def _report(turn: FlowTurn, status: dict[str, object]) -> FlowState:
    order = status["order"]
    assert isinstance(order, dict)
    if status["paid"] and str(order["order_id"]) == turn.get("order_id"):
        turn.set(payment_status="paid", sales_step=None, cart=[])
    text = order_status_response(
        turn.key,
        turn.language,
        reference=str(order["reference"]),
        order_status=ORDER_STATUS_WORDS.get(str(order["status"]), "unknown"),
        payment_status=payment_word(status),
    )
    return turn.reply(text)
