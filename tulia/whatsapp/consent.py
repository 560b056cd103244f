"""May this customer receive a template of this category? Answered from the consent ledger.

The ledger (tenants.ConsentEvent) is the append-only record of every grant and
withdrawal, so it, not a cached flag, decides:

- marketing: never when the customer's latest consent event of any kind is a
  withdrawal (STOP stays STOP until they opt in again); otherwise the latest
  marketing-or-all event must be a grant, or, with no such event, the shop must not
  require opt-in (`compliance.marketing_requires_opt_in`).
- utility and authentication (WhatsApp lets these follow a customer's own
  transaction): allowed unless the latest notifications-or-all event is a withdrawal.
"""

from __future__ import annotations

from uuid import UUID

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.models import ConsentEvent

Kind, Action = ConsentEvent.Kind, ConsentEvent.Action


def _latest(events: list[ConsentEvent], kinds: tuple[str, ...]) -> ConsentEvent | None:
    return next((event for event in events if event.kind in kinds), None)


def refusal(tenant_id: UUID | str, customer_id: int, category: str) -> str:
    """Why the customer may not receive this category ("" when they may)."""
    with tenant_context(tenant_id) as tid:
        events = list(
            ConsentEvent.objects.filter(tenant_id=tid, customer_id=customer_id).order_by(
                "-created_at", "-id"
            )
        )
    if category != "marketing":
        latest = _latest(events, (Kind.NOTIFICATIONS, Kind.ALL))
        withdrawn = latest is not None and latest.action == Action.WITHDRAWN
        return "the customer turned notifications off" if withdrawn else ""
    if events and events[0].action == Action.WITHDRAWN:
        return "the customer's latest consent event is a withdrawal"
    latest = _latest(events, (Kind.MARKETING, Kind.ALL))
    if latest is not None:
        return "" if latest.action == Action.GRANTED else "the customer opted out of marketing"
    if get_tenant(tid).compliance_settings.marketing_requires_opt_in:
        return "the customer has not opted in to marketing"
    return ""
