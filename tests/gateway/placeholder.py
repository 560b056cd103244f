"""A plain turn handler for the gateway tests (the platform runs the conversation engine).

It acknowledges text and answers non-text input (photos, voice notes, documents,
locations, stickers) politely in the customer's language, falling back to the shop's
default language.
"""

from __future__ import annotations

from tenants.accessors import get_customer, get_tenant
from tenants.context import tenant_context
from tulia.conversations.turns import TurnInput, TurnOutput
from tulia.text import label, language_of, say

_TEXTUAL = {"text", "button", "list"}


def _language_and_names(turn: TurnInput) -> tuple[str, str, str]:
    tenant = get_tenant(turn.tenant_id)
    with tenant_context(turn.tenant_id):
        customer = get_customer(turn.tenant_id, turn.customer_id)
    language = customer.language_preference or tenant.default_language
    return language_of(language), tenant.bot_name, tenant.name


def reply_for(turn: TurnInput, language: str, bot: str, shop: str) -> str:
    latest = turn.messages[-1]
    if latest.kind not in _TEXTUAL:
        what = label("placeholder.what", latest.kind, language)
        return say("placeholder.non_text", language, what=what)
    if not any(message.text for message in turn.messages):
        return say("placeholder.empty", language, shop=shop)
    return say("placeholder.ack", language, bot=bot, shop=shop)


def acknowledge(turn: TurnInput) -> TurnOutput:
    # Handed to a person, a handler says nothing unless it has a reason (the real one:
    # STOP, the queue notice); this one has none.
    if turn.conversation_status not in (None, "ai_active"):
        return TurnOutput()
    language, bot, shop = _language_and_names(turn)
    return TurnOutput(replies=[reply_for(turn, language, bot, shop)])
