"""Offers journey: what applies now, applying a coupon, then straight back to payment.

Offer names and discounts are printed from offers_get_applicable; a coupon goes
through order_apply_coupon and the new total is confirmed again before any payment
(the sale's "confirm" step), so a discount never skips the explicit yes.
"""

from __future__ import annotations

from typing import Any

from journeys.context import RunContext
from journeys.flows import checkout, parse
from journeys.flows.common import FlowTurn, open_order
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.templates.text_nodes import OfferFact, coupon_result, offers_answer
from journeys.tooling import OFFERS_GET_APPLICABLE, ORDER_APPLY_COUPON
from tools.offers_get_applicable import OfferOut

MAX_CODE_MESSAGE_WORDS = 3


def code_in(state: FlowState) -> str | None:
    """The coupon code in the message: a code the bot itself suggested, in any case
    ("kicks10"), or anything shaped like one."""
    text = state.get("inbound_text", "")
    hinted = {code.casefold(): code for code in state.get("hinted_codes") or []}
    for word in text.split():
        found = hinted.get(word.strip(".,!?*\"'").casefold())
        if found:
            return found
    return parse.coupon_code(text)


def code_alone(state: FlowState) -> bool:
    """A message that is only a coupon code (perhaps with "use" or "hii"), sent while
    an order is open: it means "apply this", whatever the classifier made of it."""
    text = state.get("inbound_text", "")
    short = len(parse.words(text)) <= MAX_CODE_MESSAGE_WORDS
    return short and open_order(state) and code_in(state) is not None


def route(state: FlowState) -> str:
    """A coupon code for the open order, a code with no order yet, or the list."""
    code = code_in(state)
    if code and open_order(state):
        return "apply_coupon"
    return "no_order" if code else "list"


def _turn(state: FlowState, ctx: RunContext) -> FlowTurn:
    turn = FlowTurn(state, ctx)
    turn.set(journey="offers", journey_step="offers.list")
    return turn


def list_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    return _list(_turn(state, ctx))


def no_order_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = _turn(state, ctx)
    return turn.reply(turn.say("coupon_no_order"))


def apply_coupon_step(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = _turn(state, ctx)
    return _apply(turn, code_in(state) or "")


STEPS = {"list": list_step, "no_order": no_order_step, "apply_coupon": apply_coupon_step}


def offers(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """The whole journey as one call (the graph runs it as a subgraph of these steps)."""
    return STEPS[route(state)](state, ctx, deps)


def _list(turn: FlowTurn) -> FlowState:
    order_id = turn.get("order_id") if open_order(turn.state) else None
    args: dict[str, Any] = {"order_id": int(order_id)} if order_id else {}
    found = turn.tool(OFFERS_GET_APPLICABLE, **args)
    if not found.ok:
        return turn.reply(turn.say("tool_failed"))
    usable = [o for o in found.output.offers if o.applicable or not order_id]
    facts = [OfferFact(title=o.name, detail=_detail(o)) for o in usable]
    return turn.reply(offers_answer(turn.key, turn.language, offers=facts))


def _detail(offer: OfferOut) -> str | None:
    code = f"code *{offer.code}*" if offer.code else None
    parts = [offer.description or None, code]
    return " · ".join(p for p in parts if p) or None


def _apply(turn: FlowTurn, code: str) -> FlowState:
    turn.set(journey_step="offers.apply_coupon")
    applied = turn.tool(ORDER_APPLY_COUPON, order_id=int(turn.get("order_id")), code=code)
    if not applied.ok:
        if applied.broken:
            return turn.reply(turn.say("tool_failed"))
        reason = turn.why(applied)
        return turn.reply(coupon_result(turn.key, turn.language, total=None, reason=reason))
    out = applied.output
    done = coupon_result(turn.key, turn.language, total=out.total, currency=out.currency)
    # The applied order is this turn's fresh total; then methods and the explicit question.
    confirmation = checkout.confirm(turn, applied=out)
    question = confirmation.get("response_text") or ""
    confirmation["response_text"] = f"{done}\n\n{question}".strip()
    return confirmation
