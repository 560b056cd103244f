"""Orders journey, after delivery or before shipping: returns, exchanges, refunds, cancels.

A return (or exchange, or refund) names an order, then an item and a reason; the shop's
policy decides (return_request_create) and the customer reads the verdict and its
reason, never a promise. A cancellation names an order that has not shipped and asks
for an explicit yes before order_cancel. The order is the reference in the message,
else the only candidate, else one picked from a numbered list (order_list_recent).

What is under way is kept in `state["support"]["order_action"]` ({"kind", "orders",
"reference"}) and `journey_step` ("orders.action_order", "orders.action_reason",
"orders.action_confirm"); another journey answering a turn changes the step, and with it
the pending question.
"""

from __future__ import annotations

import re

from journeys.context import RunContext
from journeys.flows import lexicon, parse
from journeys.flows.common import FlowTurn
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD
from journeys.state import ActionKind, ActionLine, OrderAction
from journeys.tooling import (
    ORDER_CANCEL,
    ORDER_GET_STATUS,
    ORDER_LIST_RECENT,
    RETURN_REQUEST_CREATE,
)
from tools.schemas import OrderOut
from tulia.returns.decisions import wanted_size
from tulia.returns.eligibility import DEFAULT_DAMAGE_WORDS
from tulia.text import format_money
from tulia.text import label as text_label

REFERENCE_EXAMPLE = "AB-CD2345"
STEP_ORDER, STEP_REASON, STEP_CONFIRM = "action_order", "action_reason", "action_confirm"
# A first message carries its own reason when it says why, names damage, or says this
# many words beyond the request itself.
REASON_WORDS = 4


def wanted_action(state: FlowState) -> ActionKind | None:
    """ "return", "exchange", "refund" or "cancel" asked for in this message, else None.

    "What is your return policy?" is a question for support, not a request."""
    text = state.get("inbound_text", "")
    if _about_the_policy(state, text):
        return None
    if parse.has(text, lexicon.CANCEL_ORDER):
        return "cancel"
    if parse.has(text, lexicon.REFUND):
        return "refund"
    if parse.has(text, lexicon.EXCHANGE):
        return "exchange"
    if parse.has(text, lexicon.RETURN):
        return "return"
    return None


def _about_the_policy(state: FlowState, text: str) -> bool:
    """ "What is your return policy?", "how do refunds work?": for support to answer."""
    if parse.has(text, lexicon.RETURN_POLICY):
        return True
    confident = state.get("intent_confidence", 0.0) >= INTENT_ROUTE_THRESHOLD
    asks = state.get("intent") == "support_question" and confident
    return asks and parse.order_reference(text) is None


def answers_action(state: FlowState) -> bool:
    """Is this message the answer to the order-action question asked last turn?"""
    pending, text = state["support"]["order_action"], state.get("inbound_text", "")
    step = str(state.get("journey_step") or "").removeprefix("orders.")
    if not pending or step not in (STEP_ORDER, STEP_REASON, STEP_CONFIRM):
        return False
    if step == STEP_ORDER:
        count = len(pending.get("orders", []))
        return bool(
            parse.number_choice(text, count) or parse.order_reference(text) or parse.is_no(text)
        )
    if step == STEP_CONFIRM:
        return parse.is_yes(text) or parse.is_no(text)
    return bool(parse.words(text))  # any reason at all


def action_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Answer the pending question, or start what this message asks for."""
    turn = FlowTurn(state, ctx)
    turn.set(journey="orders")
    pending = state["support"]["order_action"]
    if answers_action(state) and pending:  # answers_action saw it under way
        return _answer(turn, pending)
    kind = wanted_action(state) or "return"
    action: OrderAction = {"kind": kind, "orders": [], "reference": None}
    reference = parse.order_reference(turn.text)
    if reference:
        return _order_named(turn, action, reference, first_message=True)
    return _list_orders(turn, action)


def _answer(turn: FlowTurn, action: OrderAction) -> FlowState:
    step = str(turn.get("journey_step")).removeprefix("orders.")
    if step == STEP_CONFIRM:
        return _cancel(turn, action) if parse.is_yes(turn.text) else _kept(turn, action)
    if step == STEP_ORDER:
        if parse.is_no(turn.text) and not parse.order_reference(turn.text):
            return _dropped(turn)
        picked = parse.number_choice(turn.text, len(action["orders"]))
        reference = action["orders"][picked - 1] if picked else parse.order_reference(turn.text)
        return _order_named(turn, action, str(reference), first_message=False)
    if parse.is_no(turn.text):
        return _dropped(turn)
    return _file_return(turn, action, turn.text)


def _list_orders(turn: FlowTurn, action: OrderAction) -> FlowState:
    cancel = action["kind"] == "cancel"
    found = turn.tool(ORDER_LIST_RECENT, which="open" if cancel else "delivered")
    if not found.ok:
        return turn.reply(turn.say("tool_failed"))
    orders = found.output.orders
    if len(orders) == 1:
        return _order_named(turn, action, orders[0].reference, first_message=True)
    action = {**action, "orders": [o.reference for o in orders]}
    turn.set(support={"order_action": action}, journey_step=f"orders.{STEP_ORDER}")
    if not orders:
        if cancel:
            return _done(turn, turn.say("cancel_no_orders"))
        return turn.reply(turn.say("return_no_orders", example=REFERENCE_EXAMPLE))
    choices = "\n".join(
        f"{n}. {o.reference}: {', '.join(o.items)}" for n, o in enumerate(orders, 1)
    )
    return turn.reply(
        turn.say("cancel_pick_order" if cancel else "return_pick_order", choices=choices)
    )


def _order_named(
    turn: FlowTurn, action: OrderAction, reference: str, *, first_message: bool
) -> FlowState:
    found = turn.tool(ORDER_GET_STATUS, reference=reference)
    if not found.ok:
        if found.broken:
            return turn.reply(turn.say("tool_failed"))
        turn.set(support={"order_action": action}, journey_step=f"orders.{STEP_ORDER}")
        return turn.reply(turn.say("action_order_unknown", reference=reference))
    order = found.output.order
    lines: list[ActionLine] = [{"name": line.name, "sku": line.sku} for line in order.lines]
    action = {**action, "reference": order.reference, "lines": lines}
    if action["kind"] == "cancel":
        return _ask_cancel(turn, action, order)
    if action["kind"] == "exchange":
        return _ask_size(turn, action, order, first_message=first_message)
    if first_message and _says_why(turn.text):
        return _file_return(turn, action, turn.text)
    turn.set(support={"order_action": action}, journey_step=f"orders.{STEP_REASON}")
    items = ", ".join(line.name for line in order.lines)
    return turn.reply(turn.say("return_ask_reason", reference=order.reference, items=items))


def _ask_size(
    turn: FlowTurn, action: OrderAction, order: OrderOut, *, first_message: bool
) -> FlowState:
    """An exchange needs what the customer wants instead; the message may say it."""
    if first_message and _wanted(turn.text, order.reference):
        return _file_return(turn, action, turn.text)
    turn.set(support={"order_action": action}, journey_step=f"orders.{STEP_REASON}")
    items = ", ".join(line.name for line in order.lines)
    return turn.reply(turn.say("exchange_ask_size", reference=order.reference, items=items))


def _wanted(text: str, reference: str = "") -> str:
    """ "exchange for size 43", "nataka 42": what the customer wants, as "size N"."""
    if reference:
        text = re.sub(re.escape(reference), " ", text, flags=re.IGNORECASE)
    size = wanted_size(text)
    return f"size {size}" if size else ""


def _says_why(text: str) -> bool:
    """ "Return KN-AB1234, the sole is torn": more than the request itself."""
    if parse.has(text, lexicon.BECAUSE) or parse.has(text, DEFAULT_DAMAGE_WORDS):
        return True
    asked = set(parse.words(" ".join((*lexicon.RETURN, *lexicon.REFUND))))
    rest = [w for w in parse.words(text) if w not in asked and w not in lexicon.FILLER]
    reference = parse.order_reference(text) or ""
    rest = [w for w in rest if w not in parse.words(reference)]
    return len(rest) >= REASON_WORDS


def _file_return(turn: FlowTurn, action: OrderAction, reason: str) -> FlowState:
    kind = action["kind"] if action["kind"] in ("refund", "exchange") else "return"
    called = turn.tool(
        RETURN_REQUEST_CREATE,
        reference=action["reference"],
        action=kind,
        reason_text=reason[:1000],
        skus=_named_skus(action.get("lines", []), reason),
        language=turn.language if turn.language in ("en", "sw", "sheng") else None,
        wanted=_wanted(reason, str(action["reference"])) if kind == "exchange" else "",
    )
    if not called.ok:
        return _done(turn, turn.say("tool_failed"))
    out = called.output
    turn.set(escalation={"ticket_id": str(out.ticket_id) if out.ticket_id else None})
    return _done(turn, out.message)


def _named_skus(lines: list[ActionLine], reason: str) -> list[str]:
    """The one line the reason names among several; all lines (empty) otherwise."""
    if len(lines) < 2:
        return []
    picked = parse.number_choice(reason, len(lines)) or parse.name_choice(
        reason, [line["name"] for line in lines]
    )
    return [lines[picked - 1]["sku"]] if picked else []


def _ask_cancel(turn: FlowTurn, action: OrderAction, order: OrderOut) -> FlowState:
    if order.status in ("shipped", "delivered", "cancelled"):
        status = text_label("reply.status", order.status, turn.language)
        return _done(turn, turn.say("cancel_too_late", reference=order.reference, status=status))
    turn.set(
        support={"order_action": action},
        journey_step=f"orders.{STEP_CONFIRM}",
        awaiting_answer=True,
    )
    return turn.reply(
        turn.say(
            "cancel_confirm",
            reference=order.reference,
            items=", ".join(line.name for line in order.lines),
            total=format_money(order.total, order.currency),
        )
    )


def _cancel(turn: FlowTurn, action: OrderAction) -> FlowState:
    reference = str(action["reference"])
    called = turn.tool(ORDER_CANCEL, reference=reference)
    if not called.ok:
        if called.error_code == "order_not_cancellable":
            status = text_label("reply.status", str(called.error_facts["status"]), turn.language)
            return _done(turn, turn.say("cancel_too_late", reference=reference, status=status))
        return _done(turn, turn.say("tool_failed"))
    text = turn.say("cancel_done", reference=reference)
    if called.output.refund_due:
        text += " " + text_label("reply.order_update", "refund_due", turn.language)
    if str(called.output.order_id) == str(turn.get("order_id")):
        turn.set(payment_status=None, cart=[], quoted_amount_kes=None, sale={"step": None})
    return _done(turn, text)


def _kept(turn: FlowTurn, action: OrderAction) -> FlowState:
    return _done(turn, turn.say("cancel_kept", reference=action["reference"]))


def _dropped(turn: FlowTurn) -> FlowState:
    return _done(turn, turn.say("action_dropped"))


def _done(turn: FlowTurn, text: str) -> FlowState:
    turn.set(
        support={"order_action": None}, journey_step="orders.action_done", awaiting_answer=False
    )
    return turn.reply(text)
