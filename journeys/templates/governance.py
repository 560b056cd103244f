"""Replies of the governance layer: greetings, redirects, clarify/unknown, consent."""

from __future__ import annotations

from typing import Literal

from journeys.templates.library import ReplyKey, fill, lookup, phrase


def greeting(
    key: ReplyKey, language: str, *, shop: str | None, bot_name: str | None, short: bool
) -> str:
    """Chattiness level 1 gets the short greeting; without a persona the short one too."""
    if short or not shop or not bot_name:
        return fill(key, language, "greeting_short")
    return fill(key, language, "greeting", shop=shop, bot_name=bot_name)


def redirect(key: ReplyKey, language: str) -> str:
    return fill(key, language, "redirect")


def spam_reply(key: ReplyKey, language: str, *, shop: str | None) -> str:
    return fill(key, language, "spam_reply", shop=shop or phrase(language, "this_shop"))


def clarify_intent(key: ReplyKey, language: str, *, guess: str) -> str:
    """Ask whether the best (but uncertain) guess is right, named in the customer's words."""
    return fill(key, language, "clarify_intent", topic=lookup(language, "topic", guess))


def unknown(key: ReplyKey, language: str) -> str:
    return fill(key, language, "unknown")


def consent_confirmed(
    key: ReplyKey, language: str, *, kind: Literal["opt_out", "opt_in"], shop: str | None
) -> str:
    scenario = "consent_opt_out" if kind == "opt_out" else "consent_opt_in"
    return fill(key, language, scenario, shop=shop or phrase(language, "this_shop"))


def non_text(key: ReplyKey, language: str) -> str:
    return fill(key, language, "non_text")


def casual_reply(key: ReplyKey, language: str) -> str:
    return fill(key, language, "casual_reply")
