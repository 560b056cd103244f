"""May this customer receive a template of this category? Answered from the consent ledger.

The ledger (tenants.ConsentEvent) is the append-only record of every grant and
withdrawal, so it, not a cached flag, decides:

- marketing: never when the customer's latest consent event of any kind is a
  withdrawal (STOP stays STOP until they opt in again); otherwise the latest
  marketing-or-all event must be a grant, or, with no such event, the shop must not
  require opt-in (`compliance.marketing_requires_opt_in`).
- utility and authentication (WhatsApp lets these follow a customer's own
  transaction): allowed unless the latest notifications-or-all event is a withdrawal.

The marketing rule also exists as SQL (`marketing_allowed_sql`), for a campaign claim
that judges a hundred customers in the statement that claims them; the campaign
property test holds the two forms to the same answers.
"""

from __future__ import annotations

from uuid import UUID

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tenants.models import ConsentEvent

Kind, Action = ConsentEvent.Kind, ConsentEvent.Action


def marketing_allowed_sql(customer_column: str) -> str:
    """`refusal(tenant, customer, "marketing") == ""` as an SQL boolean over the column
    holding the customer id. Named parameters: %(consent_tenant)s (the tenant id) and
    %(opt_in_required)s (the shop's `marketing_requires_opt_in`)."""
    table = ConsentEvent._meta.db_table

    # Only our own constants are spliced in (table, caller's column, enum values); the
    # tenant and the setting travel as parameters.
    def latest(kinds: str) -> str:
        return (
            f"(SELECT e.action FROM {table} e WHERE e.tenant_id = %(consent_tenant)s "  # noqa: S608
            f"AND e.customer_id = {customer_column} {kinds}"
            "ORDER BY e.created_at DESC, e.id DESC LIMIT 1)"
        )

    withdrawn, granted = Action.WITHDRAWN.value, Action.GRANTED.value
    marketing = latest(f"AND e.kind IN ('{Kind.MARKETING.value}', '{Kind.ALL.value}') ")
    unsaid = f"CASE WHEN %(opt_in_required)s THEN 'unsaid' ELSE '{granted}' END"
    return (
        f"(COALESCE({latest('')}, '') <> '{withdrawn}' "
        f"AND COALESCE({marketing}, {unsaid}) = '{granted}')"
    )


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
