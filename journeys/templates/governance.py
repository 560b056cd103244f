"""Replies of the governance layer: greetings, redirects, clarify/unknown, consent."""

from __future__ import annotations

from typing import Literal

from tulia.text import ReplyKey, label, say


def greeting(
    key: ReplyKey,
    language: str,
    *,
    shop: str | None,
    bot_name: str | None,
    short: bool,
    intro: str | None = None,
) -> str:
    """Chattiness level 1 gets the short greeting; without a persona the short one too.
    Both are worded in the shop's tone, which `key` carries. The shop's own introduction
    (bot_intro) follows the long greeting as the shop wrote it."""
    if short or not shop or not bot_name:
        return say("reply.greeting_short", language, key)
    text = say("reply.greeting", language, key, shop=shop, bot_name=bot_name)
    return f"{text}\n{intro.strip()}" if intro and intro.strip() else text


def redirect(key: ReplyKey, language: str) -> str:
    return say("reply.redirect", language, key)


def spam_reply(key: ReplyKey, language: str, *, shop: str | None) -> str:
    return say("reply.spam_reply", language, key, shop=shop or say("reply.this_shop", language))


def clarify_intent(key: ReplyKey, language: str, *, guess: str) -> str:
    """Ask whether the best (but uncertain) guess is right, named in the customer's words."""
    topic = label("reply.topic", guess, language, default="unknown")
    return say("reply.clarify_intent", language, key, topic=topic)


def unknown(key: ReplyKey, language: str) -> str:
    return say("reply.unknown", language, key)


def consent_confirmed(
    key: ReplyKey,
    language: str,
    *,
    kind: Literal["opt_out", "opt_in", "opt_in_first"],
    shop: str | None,
) -> str:
    """ "opt_in" welcomes back a customer who had opted out; "opt_in_first" one who never did."""
    scenario = f"consent_{kind}"
    return say(f"reply.{scenario}", language, key, shop=shop or say("reply.this_shop", language))


def non_text(key: ReplyKey, language: str) -> str:
    return say("reply.non_text", language, key)


def casual_reply(key: ReplyKey, language: str) -> str:
    return say("reply.casual_reply", language, key)
