"""Telling the customer where their return/refund stands without promising money back.

The verdict is what the tenant's policy says; a person makes the decision, so every
message ends by saying the team will confirm.
"""

from __future__ import annotations

from collections.abc import Mapping

_HEAD: dict[str, dict[str, str]] = {
    "en": {
        "approved": "Your request fits our return policy.",
        "time_expired": "This order is past our {window}-day window ({days} days since delivery).",
        "item_excluded": "Some items in this request cannot be returned under our policy.",
        "not_delivered": "Our records do not show this order as delivered yet.",
        "already_returned": "Our records show this item was already returned.",
        "risk_manual": "This request needs a check by our team.",
        "damaged_manual": "Sorry about the damage. Our team needs to look at this.",
        "data_error": "I could not match this request to the order's items.",
    },
    "sw": {
        "approved": "Ombi lako linakubaliana na sera yetu ya kurudisha bidhaa.",
        "time_expired": (
            "Oda hii imepita muda wetu wa siku {window} (siku {days} tangu kufikishwa)."
        ),
        "item_excluded": "Baadhi ya bidhaa hizi haziwezi kurudishwa kwa mujibu wa sera yetu.",
        "not_delivered": "Kumbukumbu zetu hazionyeshi kuwa oda hii imefikishwa bado.",
        "already_returned": "Kumbukumbu zetu zinaonyesha bidhaa hii ilisharudishwa.",
        "risk_manual": "Ombi hili linahitaji kuangaliwa na timu yetu.",
        "damaged_manual": "Pole kwa uharibifu. Timu yetu itaangalia suala hili.",
        "data_error": "Sikuweza kulinganisha ombi hili na bidhaa za oda.",
    },
}
_TAIL = {
    "en": " I've passed it to our team{ticket}; a person will confirm what happens next.",
    "sw": " Nimeipeleka kwa timu yetu{ticket}; mtu atathibitisha hatua zinazofuata.",
}


def verdict_message(verdict: Mapping[str, object], *, language: str, ticket_id: int | None) -> str:
    lang = language if language in _HEAD else "en"
    head = _HEAD[lang][str(verdict.get("reason", "data_error"))].format(
        window=verdict.get("window_days"), days=verdict.get("days_since_delivery")
    )
    ticket = f" (ticket #{ticket_id})" if ticket_id else ""
    return head + _TAIL[lang].format(ticket=ticket)
