"""Sales journey, second half: variant, quantity, order, delivery or pickup, summary,
offers, confirmation, payment.

No step is skipped (Property 5): payment starts only from the "confirm" step, on an
explicit yes to a question that showed the order's total, and for exactly that amount
(`quoted_amount_kes`); the provider refuses any other. Every amount shown is read from
this turn's tool output (order_create, order_get_status or the payment tool).
"""

from __future__ import annotations

from typing import Any

from journeys.flows import delivery, lexicon, outcome, parse
from journeys.flows.common import ORDER_STATUS_WORDS, FlowTurn, local_phone
from journeys.flows.stale import QUOTE_STEPS, quote_is_stale
from journeys.flows.state import FlowState
from journeys.state import (
    CartLine,
    CatalogFilters,
    OrderLine,
    OrderTotals,
    PendingItem,
    VariantChoice,
)
from journeys.templates.text_nodes import order_status_response, product_disambiguate
from journeys.tooling import (
    CATALOG_GET_ITEM,
    OFFERS_GET_APPLICABLE,
    ORDER_CREATE,
    ORDER_GET_STATUS,
    PAYMENT_CREATE_PESAPAL_CHECKOUT,
    PAYMENT_GET_C2B_INSTRUCTIONS,
    PAYMENT_GET_METHODS,
    PAYMENT_INITIATE_STK_PUSH,
    STOCK_REQUEST_CREATE,
    Called,
)
from payments.tools.payment_create_pesapal_checkout import PaymentCreatePesapalCheckoutOutput
from payments.tools.payment_get_c2b_instructions import PaymentGetC2BInstructionsOutput
from payments.tools.payment_initiate_stk_push import PaymentInitiateStkPushOutput
from tools.catalog_get_item import CatalogGetItemOutput, VariantOut
from tools.order_get_status import OrderGetStatusOutput
from tools.schemas import OrderOut
from tulia import clock
from tulia.text import format_money

MAX_VARIANT_CHOICES = 12
# What starting a payment gives back, one model per method.
Started = (
    PaymentGetC2BInstructionsOutput
    | PaymentCreatePesapalCheckoutOutput
    | PaymentInitiateStkPushOutput
)


MAX_PHONE_MESSAGE_WORDS = 12
# Steps at which "lipa na 0722 …" names the phone the M-Pesa prompt should go to.
_PAYING_STEPS = ("method", "confirm", "paused", "paying")


def names_paying_phone(step: str, text: str) -> bool:
    """ "lipa na 0722 000 111", "pay with my wife's number 0711…": another phone pays."""
    short = len(parse.words(text)) <= MAX_PHONE_MESSAGE_WORDS
    return step in _PAYING_STEPS and short and parse.mobile_number(text) is not None


def answers_step(state: FlowState, step: str, text: str) -> bool:
    return names_paying_phone(step, text) or _answers(state, step, text)


def _answers(state: FlowState, step: str, text: str) -> bool:
    if step == "variant":
        pending = state["sale"]["pending_item"]
        choices = pending.get("choices", []) if pending else []
        return _variant_pick(text, choices) is not None
    if step == "quantity":
        return parse.quantity(text) is not None and len(parse.words(text)) <= 4
    if step == "method":
        # After an unpaid attempt, PAY retries the method already chosen.
        retry = bool(state.get("payment_method")) and parse.short_answer(text, lexicon.PAY, 5)
        return retry or parse.method_choice(text, state.get("payment_methods", [])) is not None
    if step == "confirm":
        return parse.is_yes(text) or parse.is_no(text)
    if step in ("paused", "paying"):
        return parse.short_answer(text, lexicon.PAY, 5)
    return delivery.answers_step(state, step, text)


def advance(turn: FlowTurn, step: str) -> FlowState:
    if names_paying_phone(step, turn.text):
        return _pay_from(turn, parse.mobile_number(turn.text) or "")
    declined = step == "confirm" and parse.is_no(turn.text)
    if step in QUOTE_STEPS and quote_is_stale(turn.state) and not declined:
        return requote(turn)
    return _advance(turn, step)


def _advance(turn: FlowTurn, step: str) -> FlowState:
    if step == "variant":
        return _variant_chosen(turn)
    if step == "quantity":
        return _create_order(turn, parse.quantity(turn.text) or 0)
    if step == "method":
        methods = turn.get("payment_methods", [])
        picked = parse.method_choice(turn.text, methods) or turn.get("payment_method")
        turn.set(payment_method=picked)
        return confirm(turn)
    if step == "confirm":
        return _initiate(turn) if parse.is_yes(turn.text) else _declined(turn)
    if step in delivery.STEPS:
        return _delivery_answered(turn, step)
    return confirm(turn)  # "pay" while paused or paying: ask again, with the fresh total


def reprompt(turn: FlowTurn, step: str) -> FlowState:
    """CONTINUE after a detour: ask the pending question again."""
    if step == "variant":
        return _ask_variant(turn, _configuring(turn))
    if step == "quantity":
        return _ask_quantity(turn, _configuring(turn))
    if step == "paying":
        return status(turn)
    if step in delivery.STEPS:
        return turn.reply(delivery.question(turn, step))
    return confirm(turn)


def _pay_from(turn: FlowTurn, phone: str) -> FlowState:
    """The M-Pesa prompt goes to the phone the customer named; the total and the new
    number are confirmed before anything is sent (a typo must not bill a stranger)."""
    turn.set(pay_phone=phone)
    if "mpesa_stk" in (turn.get("payment_methods") or []):
        turn.set(payment_method="mpesa_stk")
    return confirm(turn)


def requote(turn: FlowTurn) -> FlowState:
    """A late answer to a money question: the order read again, the question asked again
    with today's total, and nothing paid on the strength of the old one."""
    picked = parse.method_choice(turn.text, turn.get("payment_methods", []))
    if picked:  # naming a method spends nothing; the total is what gets asked again
        turn.set(payment_method=picked)
    asked = confirm(turn)
    if not asked.get("response_text") or turn.sale["step"] not in QUOTE_STEPS:
        return asked  # paid meanwhile, or the order could not be read: that answer stands
    return turn.reply(f"{turn.say('quote_expired')}\n\n{asked['response_text']}")


def payment_help(turn: FlowTurn) -> FlowState:
    """ "Did my payment go through?" while paying, or after an attempt ended unpaid."""
    told = turn.get("payment_status") in outcome.UNPAID_ENDINGS
    return status(turn) if turn.sale["step"] == "paying" or told else confirm(turn)


def select_item(
    turn: FlowTurn, item_id: int, *, variant_id: int | None = None, source: str = ""
) -> FlowState:
    """`variant_id`: chosen on the shop page (its code); asked again if now sold out.
    `source`: the page's source tag from that code, kept with the selection for the
    order it may become (empty for a selection made in the chat)."""
    got = turn.tool(CATALOG_GET_ITEM, customer=False, item_id=item_id)
    if not got.ok:
        # An item this shop does not have (a stale or foreign code) is no selection.
        return turn.reply(turn.say("tool_failed" if got.broken else "code_unknown"))
    item = got.output
    if not item.in_stock:
        # An ask for a sold-out item: the back-in-stock nudge tells them when it returns.
        turn.tool(STOCK_REQUEST_CREATE, routine=True, item_id=item_id)
        return turn.reply(turn.say("out_of_stock", item=item.name))
    filters: CatalogFilters = turn.sale["filters"] or CatalogFilters()
    pending = _pending(item, filters.get("size"))
    if variant_id is not None:
        pending = _preset(pending, variant_id)
    if source:
        pending["source"] = source
    turn.set(
        sale={"pending_item": pending, "selected_item_ids": [str(item_id)]}
    )  # ids as text (state schema)
    if pending["choices"] and pending["variant_id"] is None:
        return _ask_variant(turn, pending)
    return _ask_quantity(turn, pending)


def _pending(item: CatalogGetItemOutput, size: str | None) -> PendingItem:
    variants = [v for v in item.variants if v.in_stock][:MAX_VARIANT_CHOICES]
    attribute = _varying_attribute(variants)
    choices: list[VariantChoice] = [
        {"variant_id": v.variant_id, "label": str(v.attributes.get(attribute, v.sku))}
        for v in variants
    ]
    preset = [c for c in choices if size and c["label"] == size]
    if len(choices) == 1:
        preset = choices
    return {
        "item_id": item.item_id,
        "name": item.name,
        "attribute": attribute,
        "choices": choices,
        "variant_id": preset[0]["variant_id"] if preset else None,
        "variant_label": preset[0]["label"] if preset else None,
    }


def _preset(pending: PendingItem, variant_id: int) -> PendingItem:
    """The named variant when it is one of the in-stock choices, else none chosen."""
    chosen = [c for c in pending["choices"] if c["variant_id"] == variant_id]
    label = chosen[0]["label"] if chosen else None
    return {**pending, "variant_id": variant_id if chosen else None, "variant_label": label}


def _varying_attribute(variants: list[VariantOut]) -> str:
    keys = [k for v in variants for k in v.attributes]
    for key in dict.fromkeys(keys):
        if len({str(v.attributes.get(key)) for v in variants}) > 1:
            return key
    return keys[0] if keys else "option"


def _configuring(turn: FlowTurn) -> PendingItem:
    """The item the variant and quantity steps are about (set when the sale got there)."""
    pending = turn.sale["pending_item"]
    if pending is None:
        raise ValueError("the variant and quantity steps need the item being configured")
    return pending


def _variant_pick(text: str, choices: list[VariantChoice]) -> VariantChoice | None:
    labels = [c["label"] for c in choices]
    folded = parse.words(text)
    exact = [
        c
        for c in choices
        if parse.words(c["label"]) and set(parse.words(c["label"])) <= set(folded)
    ]
    if len(exact) == 1:
        return exact[0]
    picked = parse.number_choice(text, len(labels)) if len(folded) <= 3 else None
    return choices[picked - 1] if picked else None


def _ask_variant(turn: FlowTurn, pending: PendingItem) -> FlowState:
    turn.set(journey_step="sales.variant", sale={"step": "variant"})
    text = product_disambiguate(
        turn.key,
        turn.language,
        item=pending["name"],
        price=None,
        missing_attribute=pending["attribute"],
        choices=[c["label"] for c in pending["choices"]],
    )
    return turn.reply(text)


def _variant_chosen(turn: FlowTurn) -> FlowState:
    pending = _configuring(turn).copy()
    choice = _variant_pick(turn.text, pending["choices"])
    if choice is None:  # answers_step said yes, so this only guards a changed state
        return _ask_variant(turn, pending)
    pending["variant_id"], pending["variant_label"] = choice["variant_id"], choice["label"]
    turn.set(sale={"pending_item": pending})
    return _ask_quantity(turn, pending)


def _ask_quantity(turn: FlowTurn, pending: PendingItem) -> FlowState:
    turn.set(journey_step="sales.quantity", sale={"step": "quantity"})
    name = pending["name"] + (
        f" ({pending['variant_label']})" if pending.get("variant_label") else ""
    )
    return turn.reply(product_disambiguate(turn.key, turn.language, item=name, price=None))


def _create_order(turn: FlowTurn, quantity: int) -> FlowState:
    if not 1 <= quantity <= parse.MAX_QUANTITY:
        return turn.reply(turn.say("quantity_invalid", max=parse.MAX_QUANTITY))
    pending = _configuring(turn)
    line: OrderLine = {"item_id": pending["item_id"], "quantity": quantity}
    variant_id = pending.get("variant_id")
    if variant_id:
        line["variant_id"] = variant_id
    made = _order_once(turn, line, pending.get("source") or "")
    if not made.ok:
        if made.broken:
            return turn.reply(turn.say("tool_failed"))
        turn.set(sale={"step": "choose"})
        return turn.reply(turn.say("order_failed", reason=turn.why(made)))
    order = made.output
    cart: list[CartLine] = [
        {**line, "name": pending["name"], "variant": pending.get("variant_label")}
    ]
    turn.set(cart=cart, payment_status=None, payment_request_id=None, sale={"pending_item": None})
    turn.set(payment_attempt=0, payment_method=None, pay_phone=None, **_order_fields(order))
    hint = _offers_hint(turn, order.order_id)
    asked = delivery.start(turn, order)
    if isinstance(asked, str):
        return turn.reply(f"{hint}\n\n{asked}" if hint else asked)
    return _ask_payment(turn, asked, prefix=hint)


def _delivery_answered(turn: FlowTurn, step: str) -> FlowState:
    """Delivery or pickup chosen (and the area named): the summary and payment follow."""
    chosen = delivery.choose(turn, step)
    if isinstance(chosen, str):  # the next question, or why that answer did not fit
        return turn.reply(chosen)
    turn.set(**_order_fields(chosen))
    return _ask_payment(turn, chosen)


def _order_once(turn: FlowTurn, line: OrderLine, source: str) -> Called[OrderOut]:
    """order_create is idempotent per request id: a retry of this very turn gets the
    order the first attempt made, never a second one."""
    return turn.tool(ORDER_CREATE, lines=[line], source=source)


def _order_fields(order: OrderOut) -> dict[str, Any]:
    totals: OrderTotals = {
        "reference": order.reference,
        "total": str(order.total),  # as the tool's JSON writes a decimal
        "amount_whole_kes": order.amount_whole_kes,
        "currency": order.currency,
    }
    return {"order_id": str(order.order_id), "order_totals": totals}


def _offers_hint(turn: FlowTurn, order_id: int) -> str | None:
    """An unasked-for coupon tip is marketing: only for customers who said yes to it.
    (A customer who asks "any offers?" is answered by the offers journey regardless.)"""
    if turn.get("marketing_opt_in") is not True:
        return None
    found = turn.tool(OFFERS_GET_APPLICABLE, order_id=order_id)
    if not found.ok:
        return None
    codes = [o.code for o in found.output.offers if o.applicable and o.code][:3]
    turn.set(hinted_codes=codes)  # the customer may answer with just the code
    return turn.say("offers_hint", offers=", ".join(codes)) if codes else None


def _methods(turn: FlowTurn) -> list[str]:
    found = turn.tool(PAYMENT_GET_METHODS, customer=False)
    methods = [m.code for m in found.output.methods] if found.ok else []
    turn.set(payment_methods=methods)
    return methods


def _ask_payment(turn: FlowTurn, order: OrderOut, prefix: str | None = None) -> FlowState:
    """The sale's summary, then the payment method (or the confirmation) question."""
    summary = delivery.summary(turn, order)
    prefix = f"{prefix}\n\n{summary}" if prefix else summary
    methods = _methods(turn)
    chosen = turn.get("payment_method")
    if chosen not in methods:
        chosen = methods[0] if len(methods) == 1 else None
    if not methods:
        turn.set(journey_step="sales.no_methods", sale={"step": "paused"})
        text = turn.say("no_methods", reference=order.reference)
    elif chosen is None:
        turn.set(journey_step="sales.method", quoted_at=clock.now(), sale={"step": "method"})
        text = turn.say("ask_method", reference=order.reference, choices=turn.methods(methods))
    else:
        text = _confirm_question(turn, order, chosen)
    return turn.reply(f"{prefix}\n\n{text}" if prefix else text)


def _confirm_question(turn: FlowTurn, order: OrderOut, method: str) -> str:
    turn.set(journey_step="sales.confirm", payment_method=method, sale={"step": "confirm"})
    turn.set(quoted_amount_kes=order.amount_whole_kes, awaiting_answer=True)
    turn.set(quoted_at=clock.now())
    how = turn.say(f"method_{method}", phone=local_phone(_paying_phone(turn)))
    total = format_money(order.total, order.currency)
    return turn.say("confirm_payment", reference=order.reference, total=total, method=how)


def _paying_phone(turn: FlowTurn) -> str | None:
    return turn.get("pay_phone") or turn.get("phone_e164")


def _fresh_order(turn: FlowTurn, *, with_payment: bool = False) -> OrderGetStatusOutput | None:
    order_id = int(turn.get("order_id"))
    found = turn.tool(ORDER_GET_STATUS, order_id=order_id, with_payment=with_payment)
    return found.output if found.ok else None


def confirm(turn: FlowTurn, applied: OrderOut | None = None) -> FlowState:
    """Show the current total and ask for an explicit yes (also after a coupon); while
    the delivery question is open, that question again (payment never skips it).

    `applied`: the order a tool wrote this very turn (a coupon on a draft, which cannot
    be paid meanwhile), so it is not read back through order_get_status."""
    if turn.sale["step"] in delivery.STEPS:
        return turn.reply(delivery.question(turn, str(turn.sale["step"])))
    if applied is not None and applied.status == "draft":
        turn.set(**_order_fields(applied))
        return _ask_payment(turn, applied)
    fresh = _fresh_order(turn)
    if fresh is None:
        return turn.reply(turn.say("tool_failed"))
    if fresh.paid:
        return status(turn, fresh)
    turn.set(**_order_fields(fresh.order))
    return _ask_payment(turn, fresh.order)


def _initiate(turn: FlowTurn) -> FlowState:
    method, order_id = turn.get("payment_method"), int(turn.get("order_id"))
    amount, attempt = turn.get("quoted_amount_kes"), turn.get("payment_attempt", 0) + 1
    turn.set(payment_attempt=attempt, awaiting_answer=False)
    called: (
        Called[PaymentGetC2BInstructionsOutput]
        | Called[PaymentCreatePesapalCheckoutOutput]
        | Called[PaymentInitiateStkPushOutput]
    )
    if method == "mpesa_c2b":
        called = turn.tool(PAYMENT_GET_C2B_INSTRUCTIONS, order_id=order_id)
    elif method == "pesapal_card":
        called = turn.tool(
            PAYMENT_CREATE_PESAPAL_CHECKOUT,
            order_id=order_id,
            confirmed_amount_kes=amount,
            attempt=attempt,
        )
    else:
        called = turn.tool(
            PAYMENT_INITIATE_STK_PUSH,
            order_id=order_id,
            confirmed_amount_kes=amount,
            attempt=attempt,
            phone=turn.get("pay_phone") or "",
        )
    if not called.ok:
        turn.set(journey_step="sales.payment_failed", sale={"step": "paused"})
        return turn.reply(turn.say("payment_failed"))
    return _started(turn, called.output)


def _started(turn: FlowTurn, out: Started) -> FlowState:
    """Each method's tool gives its own output: C2B instructions (no payment record
    yet), a card checkout link, or the STK push sent to the phone."""
    amount = format_money(out.amount_kes)
    turn.set(journey_step="sales.paying", payment_status="pending", sale={"step": "paying"})
    if isinstance(out, PaymentGetC2BInstructionsOutput):
        turn.set(payment_request_id=None)
        scenario = "c2b_till" if out.kind == "till" else "c2b_paybill"
        number, account = out.business_number, out.account_reference
        return turn.reply(turn.say(scenario, amount=amount, number=number, account=account))
    turn.set(payment_request_id=str(out.payment_id))
    if isinstance(out, PaymentCreatePesapalCheckoutOutput):
        return turn.reply(turn.say("card_link", amount=amount, url=out.checkout_url))
    return turn.reply(turn.say("stk_sent", amount=amount, phone=local_phone(_paying_phone(turn))))


def _declined(turn: FlowTurn) -> FlowState:
    turn.set(journey_step="sales.declined", awaiting_answer=False, sale={"step": "paused"})
    totals: OrderTotals = turn.get("order_totals") or OrderTotals()
    reference = totals.get("reference", "")
    return turn.reply(turn.say("payment_declined", reference=reference))


def status(turn: FlowTurn, fresh: OrderGetStatusOutput | None = None) -> FlowState:
    """Payment status read from the order record, never assumed (Property 7); a `fresh`
    order given is a paid one (confirm's), so its payment attempts are not asked for."""
    fresh = fresh or _fresh_order(turn, with_payment=True)
    if fresh is None:
        return turn.reply(turn.say("tool_failed"))
    order = fresh.order
    paid = outcome.payment_state(turn, fresh)
    if fresh.paid:
        turn.set(payment_status="paid", cart=[], quoted_amount_kes=None, sale={"step": None})
    if paid in outcome.UNPAID_ENDINGS:
        return turn.reply(outcome.unpaid_reply(turn, order.reference, paid, ours=True))
    answer = outcome.payment_answer(turn, fresh, paid)
    if answer is not None:
        return turn.reply(answer)
    text = order_status_response(
        turn.key,
        turn.language,
        reference=order.reference,
        order_status=ORDER_STATUS_WORDS.get(order.status, "unknown"),
        payment_status=paid,
    )
    return turn.reply(text)
