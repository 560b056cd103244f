"""Where a conversation's messages go: our number, the customer, the sender's credentials."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from tenants.context import tenant_context
from tulia.conversations.models import Conversation


@dataclass(frozen=True)
class Route:
    account_sid: str
    auth_token: str
    from_address: str
    to_address: str


def route(tenant_id: UUID, conversation_id: int) -> Route | None:
    """Where the conversation's messages go, with the sender's credentials (None if gone)."""
    with tenant_context(tenant_id) as tid:
        conversation = (
            Conversation.objects.select_related("sender", "customer")
            .filter(tenant_id=tid, pk=conversation_id)
            .first()
        )
        if conversation is None:
            return None
        sender = conversation.sender
        return Route(
            account_sid=sender.twilio_account_sid,
            auth_token=sender.twilio_auth_token.reveal(),
            from_address=sender.whatsapp_address,
            to_address=f"whatsapp:{conversation.customer.phone_e164}",
        )
