"""What the platform sends customers on its own, and the facts each template needs.

A purpose names one kind of message (payment received, order shipped…). Inside the
24-hour window it goes out as the caller's free-form text; outside it, as the shop's
approved template for that purpose, with the facts filled into {{1}}, {{2}}… in the
order listed here. Order updates and return decisions call the gate with these keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Purpose:
    key: str
    facts: tuple[str, ...]  # fact names, in variable order: facts[0] is {{1}}
    examples: tuple[str, ...]

    def variables(self, facts: dict[str, str]) -> dict[str, str]:
        """{"1": …, "2": …} from named facts; a missing fact is an error, not a blank."""
        missing = [name for name in self.facts if not str(facts.get(name, "")).strip()]
        if missing:
            raise ValueError(f"{self.key} needs the fact(s) {', '.join(missing)}")
        return {str(n): str(facts[name])[:300] for n, name in enumerate(self.facts, start=1)}


PAYMENT_RECEIVED = "payment_received"
PAYMENT_FAILED = "payment_failed"
ORDER_CONFIRMED = "order_confirmed"
ORDER_SHIPPED = "order_shipped"
ORDER_DELIVERED = "order_delivered"
ORDER_CANCELLED = "order_cancelled"
RETURN_DECISION = "return_decision"
AGENT_REPLY = "agent_reply_waiting"
# Free-form only: a reply to the customer's own message, or a notice of the desk.
# Outside the window these have no template and are recorded as not sent.
BOT_REPLY = "reply"

PURPOSES: dict[str, Purpose] = {
    p.key: p
    for p in (
        Purpose(PAYMENT_RECEIVED, ("order", "amount", "receipt"), ("KIC-1042", "2,500", "SGH2X9")),
        Purpose(PAYMENT_FAILED, ("order", "amount"), ("KIC-1042", "2,500")),
        Purpose(ORDER_CONFIRMED, ("order",), ("KIC-1042",)),
        Purpose(ORDER_SHIPPED, ("order", "details"), ("KIC-1042", "rider Juma, 0712 000 000")),
        Purpose(ORDER_DELIVERED, ("order",), ("KIC-1042",)),
        Purpose(ORDER_CANCELLED, ("order", "reason"), ("KIC-1042", "out of stock")),
        Purpose(RETURN_DECISION, ("order", "decision"), ("KIC-1042", "approved, refund sent")),
        Purpose(AGENT_REPLY, ("agent", "reply"), ("Wanjiru", "Yes, size 42 is back in stock")),
    )
}


def purpose_for(key: str) -> Purpose | None:
    return PURPOSES.get(key)


def payment_notice(payment: Any) -> dict[str, Any]:
    """Purpose and facts of a payment outcome (a payments.PaymentRequest), for the gate.

    Paid is "payment received"; cancelled, timed out or failed is "payment failed".
    A payment under review or still being verified with the provider has no template:
    outside the window it is recorded as not sent, and the desk follows it up (never a
    "failed" template for a payment that may yet be confirmed).
    """
    order = payment.order.reference if payment.order is not None else payment.account_reference
    amount = f"{payment.amount:,.2f}".removesuffix(".00")
    if payment.status == "paid":
        facts = {"order": order, "amount": amount, "receipt": payment.receipt or order}
        return {"purpose": PAYMENT_RECEIVED, "facts": facts}
    failed = payment.status in {"failed", "cancelled", "timeout"}
    purpose = PAYMENT_FAILED if failed else "payment_review"
    return {"purpose": purpose, "facts": {"order": order, "amount": amount}}
