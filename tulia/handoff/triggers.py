"""The keyword gate the inbound pipeline runs before the bot answers (seed 004 gate 1)."""

from __future__ import annotations

from uuid import UUID

from tenants.accessors import get_tenant
from tulia.handoff.escalation import HandoffRequest, HandoffResult, escalate
from tulia.handoff.keywords import match_trigger
from tulia.handoff.models import Category


def handoff_on_keyword(
    tenant_id: UUID | str,
    conversation_id: int,
    message: str,
    request_id: str = "",
    language: str | None = None,
) -> HandoffResult | None:
    """Escalate when the message holds one of the tenant's triggers; None otherwise.

    `language` is the language of the message being answered, for the reply; without it
    the conversation's last reply language is used.
    """
    tenant = get_tenant(tenant_id)
    match = match_trigger(message, tenant.handoff_settings)
    if match is None:
        return None
    return escalate(
        tenant.id,
        conversation_id,
        HandoffRequest(
            reason=f'customer asked for a person ("{match.keyword}")',
            category=Category.KEYWORD,
            request_id=request_id,
            language=language,
        ),
    )
