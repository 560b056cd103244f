"""How the last payment attempt ended, and what the customer can do next (SPEC §6).

The answer is read from the payment record (order_get_status `with_payment`), never
inferred (Property 7): paid comes from the order, and an attempt that ended unpaid
(failed, cancelled, timed out) is told as such with a way forward that works on the
next turn: PAY retries the same method, a number picks another one.
"""

from __future__ import annotations

from journeys.flows import lexicon, parse
from journeys.flows.common import FlowTurn, payment_word
from tools.order_get_status import OrderGetStatusOutput
from tulia.text import format_money

# Attempts that ended without money: the customer can try again.
UNPAID_ENDINGS = ("failed", "cancelled", "timeout")


def payment_state(turn: FlowTurn, status_out: OrderGetStatusOutput) -> str:
    """paid / pending / failed / cancelled / timeout / unknown, from the records (the
    status tool asked `with_payment`)."""
    if status_out.paid:
        return "paid"
    latest = status_out.last_payment_status
    if latest in (*UNPAID_ENDINGS, "pending"):
        return str(latest)
    return payment_word(status_out)


def unpaid_reply(turn: FlowTurn, reference: str, ending: str, *, ours: bool) -> str:
    """The outcome and the next step; `ours` (the conversation's open order) arms it."""
    told = turn.say(f"outcome_{ending}", reference=reference)
    if not ours:
        return told
    turn.set(payment_status=ending, journey_step=f"sales.payment_{ending}")
    methods = turn.get("payment_methods") or []
    turn.set(awaiting_answer=True, quoted_amount_kes=None)
    if len(methods) < 2:
        turn.set(sale={"step": "paused"})
        return f"{told}\n{turn.say('retry_same')}"
    turn.set(sale={"step": "method"})
    return f"{told}\n{turn.say('retry_or_other', choices=turn.methods(methods))}"


def payment_answer(turn: FlowTurn, status_out: OrderGetStatusOutput, paid: str) -> str | None:
    """ "Did my payment go through?" in plain words: yes with the receipt, or still
    waiting; None for any other question (the order status answers those)."""
    asked = turn.get("intent") == "payment_help"
    about_money = asked or parse.has(turn.text, lexicon.PAYMENT_WORDS)
    if not about_money or paid not in ("paid", "pending"):
        return None
    order = status_out.order
    amount = format_money(order.total, order.currency)
    if paid == "paid":
        receipt = status_out.payment_receipt or "-"
        reference = order.reference
        return turn.say("payment_went_through", reference=reference, amount=amount, receipt=receipt)
    return turn.say("payment_waiting", reference=order.reference, amount=amount)
