"""Final reply guard (Property 2): every amount in a reply must come from this turn's facts.

Only currency-marked amounts are checked ("KES 1,250", "Ksh 900", "sh. 50", "1,250/=");
bare numbers are sizes, quantities and order numbers far more often than prices. The
facts are whatever the tools returned this turn, walked recursively, so a price nested
in an order line counts. A reply that fails is replaced by the template rendering.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation

_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?"
_MONEY = re.compile(
    rf"(?:\b(?:kes|ksh|kshs|sh|shs)\.?\s*{_NUMBER})|(?:{_NUMBER}\s*(?:/=|/-|\bbob\b|\bkes\b|\bshillings?\b))",
    re.IGNORECASE,
)


def _decimal(whole: str, cents: str | None) -> Decimal:
    return Decimal(whole.replace(",", "") + (f".{cents}" if cents else ""))


def reply_amounts(text: str) -> set[Decimal]:
    found = set()
    for match in _MONEY.finditer(text):
        whole, cents = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
        found.add(_decimal(whole, cents))
    return found


def _as_decimal(value: object) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return Decimal(str(value))
    if isinstance(value, str):
        try:
            return Decimal(value.replace(",", "").strip())
        except InvalidOperation:
            return None
    return None


def fact_amounts(facts: object) -> set[Decimal]:
    """Every number anywhere in the tool outputs (dicts, lists, pydantic dumps)."""
    if isinstance(facts, Mapping):
        return set().union(*(fact_amounts(v) for v in facts.values())) if facts else set()
    if isinstance(facts, Iterable) and not isinstance(facts, str | bytes):
        return set().union(*(fact_amounts(v) for v in facts))
    number = _as_decimal(facts)
    return {number.normalize()} if number is not None else set()


def ungrounded_amounts(reply: str, facts: object) -> set[Decimal]:
    """Amounts in the reply that no tool output of this turn contains (empty = grounded)."""
    allowed = fact_amounts(facts)
    return {amount for amount in reply_amounts(reply) if amount.normalize() not in allowed}


def guarded_reply(reply: str, facts: object, fallback: str) -> str:
    return reply if not ungrounded_amounts(reply, facts) else fallback
