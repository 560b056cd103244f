"""What the customer is told about a payment, in English and Kiswahili (and Sheng).

Every message states what happened and one clear next step. Sheng speakers get a Sheng
text where one is written (the verification texts) and the Kiswahili one otherwise.
Facts come from the payment record only.
"""

from __future__ import annotations

from dataclasses import dataclass

TEXTS: dict[str, dict[str, str]] = {
    "paid": {
        "en": "Payment received: KES {amount} for order {order}. M-Pesa receipt {receipt}. "
        "Thank you! We are preparing your order.",
        "sw": "Malipo yamepokelewa: KES {amount} kwa oda {order}. Risiti ya M-Pesa {receipt}. "
        "Asante! Tunaandaa oda yako.",
    },
    "cancelled": {
        "en": "The M-Pesa request for order {order} was cancelled, so nothing was charged. "
        "{next_step}",
        "sw": "Ombi la M-Pesa la oda {order} lilighairiwa, hakuna pesa iliyokatwa. {next_step}",
    },
    "timeout": {
        "en": "We did not get an answer to the M-Pesa prompt for order {order} "
        "(the phone may have been off or busy). {next_step}",
        "sw": "Hatukupata jibu la ombi la M-Pesa la oda {order} (huenda simu ilikuwa "
        "imezimwa au ina shughuli). {next_step}",
    },
    "insufficient_funds": {
        "en": "M-Pesa says the balance was not enough for KES {amount} (order {order}). "
        "{next_step}",
        "sw": "M-Pesa inasema salio halikutosha kwa KES {amount} (oda {order}). {next_step}",
    },
    "wrong_pin": {
        "en": "The M-Pesa PIN was not accepted for order {order}. {next_step}",
        "sw": "PIN ya M-Pesa haikukubaliwa kwa oda {order}. {next_step}",
    },
    "failed": {
        "en": "The payment for order {order} did not go through ({why}). {next_step}",
        "sw": "Malipo ya oda {order} hayakufaulu ({why}). {next_step}",
    },
    "confirming": {
        "en": "We have a payment notice for order {order} and are confirming it with "
        "M-Pesa now. We will message you as soon as it is confirmed.",
        "sw": "Tumepata taarifa ya malipo ya oda {order} na tunayathibitisha na M-Pesa sasa. "
        "Tutakutumia ujumbe mara tu yakithibitishwa.",
        "sheng": "Tumeona notice ya malipo ya oda {order}, tunaconfirm na M-Pesa saa hii. "
        "Tutakuchekia pindi ikiconfirmiwa.",
    },
    "not_confirmed": {
        "en": "We could not confirm a payment for order {order} with M-Pesa, so nothing is "
        "confirmed and the order is not paid yet. If money left your account, keep the "
        "M-Pesa message: the shop will check it. {next_step}",
        "sw": "Hatukuweza kuthibitisha malipo ya oda {order} na M-Pesa, kwa hivyo hakuna "
        "kilichothibitishwa na oda bado haijalipwa. Kama pesa imetoka kwenye akaunti yako, "
        "hifadhi ujumbe wa M-Pesa: duka litaukagua. {next_step}",
        "sheng": "Hatujaweza kuconfirm malipo ya oda {order} na M-Pesa, so hakuna kitu "
        "imeconfirmiwa na oda bado haijalipwa. Kama doh imetoka kwa account yako, keep "
        "message ya M-Pesa: duka itaicheck. {next_step}",
    },
    "review": {
        "en": "We received a payment for order {order} that needs a quick check by the shop "
        "(for example the amount differs). Someone will get back to you shortly.",
        "sw": "Tumepokea malipo ya oda {order} yanayohitaji kukaguliwa na duka (kwa mfano "
        "kiasi ni tofauti). Mtu atawasiliana nawe hivi karibuni.",
    },
}

NEXT_STEPS: dict[str, dict[str, str]] = {
    "retry": {
        "en": "Reply PAY to get a new M-Pesa prompt.",
        "sw": "Jibu LIPA kupata ombi jipya la M-Pesa.",
    },
    "c2b": {
        "en": "Or pay via M-Pesa {kind} {business}{account} for KES {amount}.",
        "sw": "Au lipa kupitia M-Pesa {kind} {business}{account} KES {amount}.",
    },
    "card": {
        "en": "Or reply CARD for a card payment link.",
        "sw": "Au jibu KADI kupata kiungo cha kulipa kwa kadi.",
    },
}

# Failures where asking again cannot help at once (daily limit, locked PIN).
_NO_QUICK_RETRY = frozenset({"limit", "locked", "too_soon"})
_REASON_WORDS = {
    "limit": "M-Pesa limit reached",
    "locked": "M-Pesa PIN locked: dial 100 or 200",
    "too_soon": "same amount sent within 2 minutes",
    "busy": "M-Pesa is busy",
    "card_failed": "card declined",
}


@dataclass(frozen=True)
class Facts:
    order: str
    amount: str
    receipt: str
    reason: str
    c2b: tuple[str, str, str] | None  # (kind, business number, account reference)
    card_enabled: bool


# The card return page: the browser may be anyone's, so it names nothing and says both.
CARD_RETURN = {
    "en": "Thank you. We are checking your payment and will message you on WhatsApp.",
    "sw": "Asante. Tunakagua malipo yako na tutakutumia ujumbe kwenye WhatsApp.",
}


def card_return_text() -> str:
    return f"{CARD_RETURN['en']} / {CARD_RETURN['sw']}"


def language_for(preference: str, default: str) -> str:
    lang = preference or default
    return lang if lang in ("sw", "sheng") else "en"


def render(facts: Facts, lang: str) -> str:
    key = facts.reason if facts.reason in TEXTS else "failed"
    if facts.reason == "pending":
        key = "review"
    text = TEXTS[key].get(lang) or TEXTS[key]["sw"]
    lang = "sw" if lang == "sheng" else lang  # next steps have no Sheng copy
    return text.format(
        order=facts.order,
        amount=facts.amount,
        receipt=facts.receipt or "-",
        why=_REASON_WORDS.get(facts.reason, facts.reason.replace("_", " ")),
        next_step=_next_steps(facts, lang),
    )


def _next_steps(facts: Facts, lang: str) -> str:
    steps = [] if facts.reason in _NO_QUICK_RETRY else [NEXT_STEPS["retry"][lang]]
    if facts.c2b:
        kind, business, account = facts.c2b
        label = {"paybill": "Paybill", "till": "Till"}.get(kind, kind)
        account_text = f", account {account}" if account and lang == "en" else ""
        if account and lang == "sw":
            account_text = f", akaunti {account}"
        steps.append(
            NEXT_STEPS["c2b"][lang].format(
                kind=label, business=business, account=account_text, amount=facts.amount
            )
        )
    if facts.card_enabled:
        steps.append(NEXT_STEPS["card"][lang])
    return " ".join(steps)
