"""Provider result codes → our payment status and the reason we tell the customer.

Decisions are made on codes, never on description text: Daraja prefixes its
descriptions ("[STK_CB - ]…") and PesaPal's wording varies.
"""

from __future__ import annotations

from dataclasses import dataclass

from payments.models import PaymentStatus


@dataclass(frozen=True)
class Outcome:
    status: PaymentStatus
    # Key into payments.messages: what happened, in customer terms.
    reason: str


PAID = Outcome(PaymentStatus.PAID, "paid")
STILL_PENDING = Outcome(PaymentStatus.PENDING, "pending")

_STK_CODES: dict[str, Outcome] = {
    "0": PAID,
    "1": Outcome(PaymentStatus.FAILED, "insufficient_funds"),
    "2": Outcome(PaymentStatus.FAILED, "limit"),
    "3": Outcome(PaymentStatus.FAILED, "limit"),
    "4": Outcome(PaymentStatus.FAILED, "limit"),
    "8": Outcome(PaymentStatus.FAILED, "limit"),
    "17": Outcome(PaymentStatus.FAILED, "too_soon"),
    "26": Outcome(PaymentStatus.FAILED, "busy"),
    "1001": Outcome(PaymentStatus.FAILED, "busy"),
    "1019": Outcome(PaymentStatus.TIMEOUT, "timeout"),
    "1025": Outcome(PaymentStatus.FAILED, "busy"),
    "1032": Outcome(PaymentStatus.CANCELLED, "cancelled"),
    "1036": Outcome(PaymentStatus.TIMEOUT, "timeout"),
    "1037": Outcome(PaymentStatus.TIMEOUT, "timeout"),
    "2001": Outcome(PaymentStatus.FAILED, "wrong_pin"),
    "8006": Outcome(PaymentStatus.FAILED, "locked"),
    "9999": Outcome(PaymentStatus.FAILED, "busy"),
}


def stk_outcome(result_code: int | str) -> Outcome:
    """The STK callback's integer code or the query's string code, mapped alike."""
    return _STK_CODES.get(str(result_code).strip(), Outcome(PaymentStatus.FAILED, "failed"))


def pesapal_outcome(status_code: int | None) -> Outcome:
    """GetTransactionStatus: 1 paid, 2 failed, 3 reversed; anything else is pending."""
    if status_code == 1:
        return PAID
    if status_code == 2:
        return Outcome(PaymentStatus.FAILED, "card_failed")
    if status_code == 3:
        # A reversal after payment needs a person (the order may be fulfilled already).
        return Outcome(PaymentStatus.UNKNOWN, "reversed")
    # Status 0 ("INVALID") is what an unpaid order looks like, and an error in the body
    # (HTTP 200, "status": "500") may be PesaPal's own hiccup: neither says the card
    # failed, so the payment stays pending and is queried again later. Only status 2
    # fails it; telling a customer "failed" after they paid is the costly mistake.
    return STILL_PENDING
