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

# A number ends where the word ends: "SH3" inside an order reference (KI-SH3BMX) is no price.
_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?!\w)"
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


# --- Phrased replies -------------------------------------------------------------------
# A model rephrasing a template may change words, never facts: whatever the template
# names (links, order references, numbered options, numbers) must come through intact,
# and the model may add no number the template and the tool outputs do not hold.

MAX_REPLY_CHARS = 1600  # one WhatsApp message; longer is split, which a rephrasing never needs
_LINK = re.compile(r"https?://[^\s<>*\"')\]]+")
_ORDER_REFERENCE = re.compile(r"\b[A-Z]{2,3}-[A-Z0-9]{4,8}\b")
_OPTION = re.compile(r"(?<![\d,.])(\d{1,2})[.)]\s+\*?([^\n,—*]+)")
_BARE_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def links(text: str) -> set[str]:
    return {link.rstrip(".,;:!?") for link in _LINK.findall(text)}


def order_references(text: str) -> set[str]:
    return set(_ORDER_REFERENCE.findall(text))


def numbered_options(text: str) -> dict[str, str]:
    """Option number -> its label ("1. Air Runner Black — *KES 4,500*" -> "Air Runner Black")."""
    return {number: label.strip() for number, label in _OPTION.findall(text)}


def numbers(text: str) -> set[Decimal]:
    """Every number written in the text (links excluded: their ids are not facts to say)."""
    bare = _LINK.sub(" ", text)
    return {Decimal(n.replace(",", "")).normalize() for n in _BARE_NUMBER.findall(bare)}


def _options_kept(template: str, candidate: str) -> bool:
    folded = candidate.casefold()
    for number, label in numbered_options(template).items():
        marker = re.compile(rf"(?<![\d,.]){number}[.)]")
        if not marker.search(candidate) or label.casefold() not in folded:
            return False
    return True


def phrasing_problems(candidate: str, template: str, facts: object) -> list[str]:
    """Why a model's rephrasing of `template` cannot be sent (empty list: it can)."""
    problems = []
    if not candidate.strip() or len(candidate) > min(MAX_REPLY_CHARS, 2 * len(template) + 160):
        problems.append("length")
    if ungrounded_amounts(candidate, facts):
        problems.append("ungrounded_amount")
    if not reply_amounts(template) <= reply_amounts(candidate):
        problems.append("dropped_amount")
    if not links(template) <= links(candidate):
        problems.append("dropped_link")
    if not order_references(template) <= order_references(candidate):
        problems.append("dropped_order_reference")
    if not _options_kept(template, candidate):
        problems.append("dropped_option")
    if not numbers(template) <= numbers(candidate):
        problems.append("dropped_number")
    if not numbers(candidate) <= numbers(template) | fact_amounts(facts):
        problems.append("invented_number")
    return problems
