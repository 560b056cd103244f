"""Named readers of conversations for the tenant API (STYLE 1).

The tenant is explicit; a conversation of another tenant is NotFound exactly like an
absent one, so a caller learns nothing about ids it does not own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db.models import CharField, F, QuerySet, Value

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.handoff.models import HandoffTicket
from tulia.whatsapp.gate import in_window

# The engine-state keys a helpdesk may read; the rest is the engine's own business.
SUMMARY_KEYS = (
    "journey", "journey_step", "response_language", "cart", "order_id", "order_totals",
    "payment_status",
)  # fmt: skip


def conversations(
    tenant_id: UUID | str, *, status: str | None = None, waiting: bool | None = None
) -> QuerySet[Conversation]:
    """The tenant's conversations, newest activity first. `waiting` means a customer is
    waiting for a person (status waiting), the filter a helpdesk polls."""
    with tenant_context(tenant_id) as tid:
        rows = Conversation.objects.filter(tenant_id=tid)
    if status:
        rows = rows.filter(status=status)
    if waiting is not None:
        wanted = Conversation.Status.WAITING
        rows = rows.filter(status=wanted) if waiting else rows.exclude(status=wanted)
    return rows.select_related("customer").order_by("-updated_at", "-id")


def conversation(tenant_id: UUID | str, conversation_id: int) -> Conversation:
    with tenant_context(tenant_id) as tid:
        found = (
            Conversation.objects.filter(tenant_id=tid, pk=conversation_id)
            .select_related("customer")
            .first()
        )
    if found is None:
        raise NotFound("conversation not found")
    return found


@dataclass(frozen=True)
class StateSummary:
    conversation: Conversation
    in_reply_window: bool
    engine: dict[str, Any]
    tickets: list[HandoffTicket]


def state_summary(tenant_id: UUID | str, conversation_id: int) -> StateSummary:
    """What the bot knows and where the chat stands, with every ticket it has had."""
    found = conversation(tenant_id, conversation_id)
    with tenant_context(tenant_id) as tid:
        tickets = list(
            HandoffTicket.objects.filter(tenant_id=tid, conversation_id=found.pk)
            .select_related("customer")
            .order_by("-opened_at", "-id")
        )
    state = found.state or {}
    return StateSummary(
        conversation=found,
        in_reply_window=in_window(found),
        engine={key: state.get(key) for key in SUMMARY_KEYS},
        tickets=tickets,
    )


_MESSAGE_COLUMNS = ("direction", "message_id", "text", "at", "delivery", "reply_purpose", "problem")


def messages(tenant_id: UUID | str, conversation_id: int) -> QuerySet[Any]:
    """Both directions of one conversation as one time-ordered, sliceable query (a page
    is one LIMIT/OFFSET in the database, whatever the conversation's length)."""
    found = conversation(tenant_id, conversation_id)
    text: CharField[str, str] = CharField()
    with tenant_context(tenant_id) as tid:
        scope = {"tenant_id": tid, "conversation_id": found.pk}
        inbound = InboundMessage.objects.filter(**scope).annotate(
            direction=Value("customer", output_field=text),
            message_id=F("id"),
            text=F("body"),
            at=F("received_at"),
            delivery=F("status"),
            reply_purpose=Value("", output_field=text),
            problem=Value("", output_field=text),
        )
        outbound = OutboundMessage.objects.filter(**scope).annotate(
            direction=Value("shop", output_field=text),
            message_id=F("id"),
            text=F("body"),
            at=F("created_at"),
            delivery=F("status"),
            reply_purpose=F("purpose"),
            problem=F("error_message"),
        )
        return (
            inbound.values(*_MESSAGE_COLUMNS)
            .union(outbound.values(*_MESSAGE_COLUMNS), all=True)
            .order_by("at", "direction", "message_id")
        )
