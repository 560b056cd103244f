"""What the customer is told about a payment, in the conversation's language.

Every message states what happened and one clear next step. The wording lives in the
one text catalog (`tulia/text/*.json`, "payments." keys, English, Kiswahili and Sheng);
this module only picks the key and fills in facts, which come from the payment record,
and words them in the shop's tone (Tenant.tone_style): the facts are the same in each.
"""

from __future__ import annotations

from dataclasses import dataclass

from tulia.text import LANGUAGES, label, notice, say

# Reasons with a sentence of their own; any other reads as "failed" with its why-words.
_OWN_SENTENCE = frozenset(
    {
        "paid",
        "cancelled",
        "timeout",
        "insufficient_funds",
        "wrong_pin",
        "failed",
        "confirming",
        "not_confirmed",
        "review",
    }
)
# Failures where asking again cannot help at once (daily limit, locked PIN).
_NO_QUICK_RETRY = frozenset({"limit", "locked", "too_soon"})
_METHOD_LABELS = {"paybill": "Paybill", "till": "Till"}


@dataclass(frozen=True)
class Facts:
    order: str
    amount: str
    receipt: str
    reason: str
    c2b: tuple[str, str, str] | None  # (kind, business number, account reference)
    card_enabled: bool


def card_return_text() -> str:
    """The card return page: the browser may be anyone's, so it names nothing, and says
    it in every language."""
    return " / ".join(dict.fromkeys(say("payments.card_return", lang) for lang in LANGUAGES))


def language_for(*preferences: str | None) -> str:
    """The first of the given languages that the catalog speaks (else English)."""
    return next((lang for lang in preferences if lang in LANGUAGES), "en")


def render(facts: Facts, lang: str, tone: str | None = None) -> str:
    """The outcome in the shop's tone; the next steps are instructions and read plain."""
    key = "review" if facts.reason == "pending" else facts.reason
    key = key if key in _OWN_SENTENCE else "failed"
    return notice(
        f"payments.{key}",
        lang,
        tone,
        order=facts.order,
        amount=facts.amount,
        receipt=facts.receipt or "-",
        why=label("payments.why", facts.reason, lang, default="failed"),
        next_step=_next_steps(facts, lang),
    )


def _next_steps(facts: Facts, lang: str) -> str:
    steps = [] if facts.reason in _NO_QUICK_RETRY else [say("payments.next_retry", lang)]
    if facts.c2b:
        kind, business, account = facts.c2b
        account_text = say("payments.next_c2b_account", lang, account=account) if account else ""
        steps.append(
            say(
                "payments.next_c2b",
                lang,
                kind=_METHOD_LABELS.get(kind, kind),
                business=business,
                account=account_text,
                amount=facts.amount,
            )
        )
    if facts.card_enabled:
        steps.append(say("payments.next_card", lang))
    return " ".join(steps)
