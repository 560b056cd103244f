"""Telling the customer where their return/refund stands without promising money back.

The verdict is what the tenant's policy says; a person makes the decision, so every
message ends by saying the team will confirm. The wording lives in the text catalog
under "returns.", worded in the shop's tone.
"""

from __future__ import annotations

from collections.abc import Mapping

from tulia.text import notice, say


def verdict_message(
    verdict: Mapping[str, object],
    *,
    language: str,
    ticket_id: int | None,
    wanted: str = "",
    tone: str | None = None,
) -> str:
    head = notice(
        f"returns.{verdict.get('reason', 'data_error')}",
        language,
        tone,
        window=verdict.get("window_days"),
        days=verdict.get("days_since_delivery"),
    )
    ticket = say("returns.ticket", language, ticket_id=ticket_id) if ticket_id else ""
    exchange = say("returns.exchange_noted", language, wanted=wanted) if wanted else ""
    return head + exchange + notice("returns.passed_on", language, tone, ticket=ticket)
