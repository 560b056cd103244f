"""Texts the gateway itself sends to customers, in each supported language.

Kept apart from the turn handlers: these go out when no turn runs at all.
"""

from __future__ import annotations

RATE_LIMIT_NOTICE = {
    "en": "You're sending messages faster than we can answer. Please wait a minute, "
    "then send your message again.",
    "sw": "Unatuma jumbe kwa kasi kuliko tunavyoweza kujibu. Tafadhali subiri dakika moja, "
    "kisha utume ujumbe wako tena.",
    "sheng": "Unatuma messages haraka sana. Tafadhali chill dakika moja, "
    "alafu utume message yako tena.",
}


def rate_limit_notice(language: str) -> str:
    return RATE_LIMIT_NOTICE.get(language, RATE_LIMIT_NOTICE["en"])
