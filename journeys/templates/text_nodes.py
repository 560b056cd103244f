"""Deterministic implementations of the text-output LLM nodes (SPEC §5.4).

Each renderer is handed the facts a tool produced this turn and only arranges them:
prices, statuses, totals and policy text come in as arguments and are printed as
given (prices in *bold*), never computed or made up here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from tulia.text import ReplyKey, format_money, label, say

MAX_OPTIONS = 6  # WhatsApp shortlist cap (Property 6)
MAX_SNIPPET_CHARS = 600


@dataclass(frozen=True, slots=True)
class OptionFact:
    name: str
    price: Decimal | None
    currency: str = "KES"
    note: str | None = None


@dataclass(frozen=True, slots=True)
class SnippetFact:
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class OfferFact:
    title: str
    detail: str | None = None


def _price(amount: Decimal | None, currency: str) -> str:
    return f"*{format_money(amount, currency)}*" if amount is not None else ""


def _option_line(number: int, option: OptionFact) -> str:
    parts = [f"{number}. {option.name}", _price(option.price, option.currency), option.note]
    return " — ".join(part for part in parts if part)


def catalog_present_options(
    key: ReplyKey,
    language: str,
    *,
    query: str,
    options: Sequence[OptionFact],
    total: int | None = None,
    link: str | None = None,
) -> str:
    """A numbered shortlist of at most six items, with the deep link when there are more."""
    if not options:
        if link:
            return say("reply.catalog_link", language, key, link=link)
        return say("reply.no_results", language, key, query=query)
    shown = list(options)[:MAX_OPTIONS]
    lines = [say("reply.options_intro", language, key, query=query)]
    lines += [_option_line(i, option) for i, option in enumerate(shown, start=1)]
    if link and total is not None and total > len(shown):
        lines.append(say("reply.options_more", language, key, total=total, link=link))
    lines.append(say("reply.options_footer", language, key))
    return "\n".join(lines)


def not_stocked(
    key: ReplyKey,
    language: str,
    *,
    query: str,
    alternatives: Sequence[OptionFact],
    link: str | None = None,
) -> str:
    """ "We don't stock that", then the closest in-stock items as a numbered shortlist, or
    the shop's whole catalog (never a search for the thing it does not sell)."""
    lines = [say("reply.not_stocked", language, key, query=query)]
    if alternatives:
        lines.append(say("reply.closest_intro", language, key))
        shown = list(alternatives)[:MAX_OPTIONS]
        lines += [_option_line(i, option) for i, option in enumerate(shown, start=1)]
        lines.append(say("reply.options_footer", language, key))
    elif link:
        lines.append(say("reply.not_stocked_browse", language, key, link=link))
    else:
        lines.append(say("reply.not_stocked_ask", language, key))
    return "\n".join(lines)


def product_disambiguate(
    key: ReplyKey,
    language: str,
    *,
    item: str,
    price: Decimal | None,
    currency: str = "KES",
    missing_attribute: str | None = None,
    choices: Sequence[str] = (),
    quantity: int | None = None,
) -> str:
    """Ask for the missing variant, then the quantity, then confirm item and unit price."""
    if missing_attribute:
        numbered = ", ".join(f"{i}) {choice}" for i, choice in enumerate(choices, start=1))
        return say(
            "reply.ask_variant",
            language,
            key,
            item=item,
            attribute=missing_attribute,
            choices=numbered,
        )
    if quantity is None or price is None:
        return say("reply.ask_quantity", language, key, item=item)
    unit = format_money(price, currency)
    return say("reply.confirm_item", language, key, item=item, quantity=quantity, price=unit)


def _cut_at_sentence(text: str, limit: int) -> str:
    """At most `limit` characters, ending at a sentence or line end, never mid-word."""
    if len(text) <= limit:
        return text.strip()
    head = text[:limit]
    end = max(head.rfind(mark) for mark in (". ", ".\n", "\n", "! ", "? "))
    if end < limit // 3:  # no usable sentence end: fall back to the last whole word
        return head.rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return head[: end + 1].strip()


def support_rag_answer(key: ReplyKey, language: str, *, snippets: Sequence[SnippetFact]) -> str:
    """Quote the retrieved text and cite the document titles; nothing retrieved, say so."""
    if not snippets:
        return say("reply.support_no_context", language, key)
    answer = _cut_at_sentence("\n".join(s.text.strip() for s in snippets), MAX_SNIPPET_CHARS)
    titles = ", ".join(dict.fromkeys(s.title for s in snippets))
    return say("reply.support_answer", language, key, answer=answer, sources=titles)


def offers_answer(key: ReplyKey, language: str, *, offers: Sequence[OfferFact]) -> str:
    if not offers:
        return say("reply.offers_none", language, key)
    lines = [say("reply.offers_intro", language, key)]
    for i, offer in enumerate(offers[:MAX_OPTIONS], start=1):
        lines.append(f"{i}. *{offer.title}*" + (f" — {offer.detail}" if offer.detail else ""))
    return "\n".join(lines)


def coupon_result(
    key: ReplyKey,
    language: str,
    *,
    total: Decimal | None,
    currency: str = "KES",
    reason: str | None = None,
) -> str:
    if total is None:
        return say("reply.coupon_rejected", language, key, reason=reason or "?")
    return say("reply.coupon_applied", language, key, total=format_money(total, currency))


def order_status_response(
    key: ReplyKey,
    language: str,
    *,
    reference: str | None,
    order_status: str | None,
    payment_status: str | None,
) -> str:
    """Statuses come from the order record; an unlisted value reads as "not confirmed"."""
    if reference is None:
        return say("reply.order_not_found", language, key)
    return say(
        "reply.order_status",
        language,
        key,
        reference=reference,
        order_status=_status(order_status, language),
        payment_status=_status(payment_status, language),
    )


def _status(name: str | None, language: str) -> str:
    return label("reply.status", name or "unknown", language, default="unknown")


def prefs_consent_response(
    key: ReplyKey,
    language: str,
    *,
    change: Literal["language", "notifications"],
    new_language: str | None = None,
    summary: str | None = None,
) -> str:
    if change == "language":
        name = label("reply.language_name", new_language or "en", language, default="en")
        return say("reply.prefs_language", language, key, language=name)
    return say("reply.prefs_notifications", language, key, summary=summary or "")


def handoff_message(key: ReplyKey, language: str, *, ticket: str, team_available: bool) -> str:
    when = say(f"reply.handoff_when_{'open' if team_available else 'closed'}", language, key)
    return say("reply.handoff", language, key, ticket=ticket, when=when)
