"""The stand-in turn handler until the conversation engine replaces it.

It acknowledges text and answers non-text input (photos, voice notes, documents,
locations, stickers) politely in the customer's language, falling back to the shop's
default language.
"""

from __future__ import annotations

from tenants.accessors import get_customer, get_tenant
from tenants.context import tenant_context
from tulia.conversations.turns import TurnInput, TurnOutput

_ACK = {
    "en": "Thanks, {bot} here from {shop}. We got your message and will get back to you.",
    "sw": "Asante, ni {bot} wa {shop}. Tumepokea ujumbe wako, tutakujibu hivi punde.",
    "sheng": "Poa, ni {bot} wa {shop}. Tumeget message yako, tutakushow soon.",
}
_EMPTY = {
    "en": "Hi! I didn't catch any text there. How can {shop} help you today?",
    "sw": "Habari! Sikuona maandishi yoyote. {shop} ikusaidie na nini leo?",
    "sheng": "Niaje! Sijaona text yoyote. {shop} ikusaidie aje leo?",
}
_NON_TEXT = {
    "en": "Thanks for the {what}. I can only read text for now, could you type your request?",
    "sw": "Asante kwa {what}. Kwa sasa nasoma maandishi tu, tafadhali andika ombi lako.",
    "sheng": "Asante kwa {what}. Kwa sasa nasoma text pekee, tafadhali andika unataka nini.",
}
_WHAT = {
    "en": {
        "image": "photo",
        "sticker": "sticker",
        "voice": "voice note",
        "video": "video",
        "document": "document",
        "location": "location",
    },
    "sw": {
        "image": "picha",
        "sticker": "stika",
        "voice": "ujumbe wa sauti",
        "video": "video",
        "document": "hati",
        "location": "mahali",
    },
    "sheng": {
        "image": "picha",
        "sticker": "sticker",
        "voice": "voice note",
        "video": "video",
        "document": "document",
        "location": "location",
    },
}
_TEXTUAL = {"text", "button", "list"}


def _language_and_names(turn: TurnInput) -> tuple[str, str, str]:
    tenant = get_tenant(turn.tenant_id)
    with tenant_context(turn.tenant_id):
        customer = get_customer(turn.tenant_id, turn.customer_id)
    language = customer.language_preference or tenant.default_language
    return (language if language in _ACK else "en"), tenant.bot_name, tenant.name


def reply_for(turn: TurnInput, language: str, bot: str, shop: str) -> str:
    latest = turn.messages[-1]
    if latest.kind not in _TEXTUAL:
        return _NON_TEXT[language].format(what=_WHAT[language][latest.kind])
    if not any(message.text for message in turn.messages):
        return _EMPTY[language].format(shop=shop)
    return _ACK[language].format(bot=bot, shop=shop)


def acknowledge(turn: TurnInput) -> TurnOutput:
    language, bot, shop = _language_and_names(turn)
    return TurnOutput(replies=[reply_for(turn, language, bot, shop)])
