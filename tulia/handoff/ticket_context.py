"""What a ticket tells an agent so the customer never has to repeat themselves.

Built from the conversation's persisted engine state and its last messages. Anything
the state does not know is "unknown" (never guessed), so every ticket carries identity,
journey, step and reason whatever path opened it (Property 12).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db.models import CharField, Value
from pydantic import BaseModel, ConfigDict, Field

from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.normalise import printable

UNKNOWN = "unknown"
LAST_MESSAGES = 10
_SUMMARY_CHARS = 600


class MessageLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    direction: str  # "customer" or "shop"
    body: str
    at: str


class TicketContext(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: UUID
    customer_id: int
    conversation_id: int
    journey: str = Field(min_length=1)
    step: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    category: str
    cart: list[dict[str, Any]] = Field(default_factory=list)
    order: dict[str, Any] = Field(default_factory=dict)
    payment: dict[str, Any] = Field(default_factory=dict)
    transcript_summary: str
    last_messages: list[MessageLine] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


def _text(value: object) -> str:
    cleaned = printable(str(value)).strip() if value is not None else ""
    return cleaned or UNKNOWN


def last_messages(conversation: Conversation) -> list[MessageLine]:
    """The last few messages either way, oldest first (caller holds the tenant context)."""
    scope = {"tenant_id": conversation.tenant_id, "conversation": conversation}
    customer, shop = Value("customer", CharField()), Value("shop", CharField())
    inbound = (
        InboundMessage.objects.filter(**scope)
        .order_by("-received_at", "-id")
        .values_list("received_at", customer, "body")[:LAST_MESSAGES]
    )
    outbound = (
        OutboundMessage.objects.filter(**scope)
        .order_by("-created_at", "-id")
        .values_list("created_at", shop, "body")[:LAST_MESSAGES]
    )
    # One round trip: both sides' last few, each already cut to size by PostgreSQL.
    timed = sorted(inbound.union(outbound, all=True), key=lambda e: (e[0], e[1] == "shop"))
    return [
        MessageLine(direction=direction, body=body, at=at.isoformat())
        for at, direction, body in timed[-LAST_MESSAGES:]
    ]


def summarise(lines: list[MessageLine], reason: str) -> str:
    """A plain, deterministic summary; the graph may pass a better one."""
    said = " / ".join(line.body for line in lines if line.direction == "customer")
    return f"Handed over: {reason}. Customer wrote: {said or 'nothing yet'}"[:_SUMMARY_CHARS]


def build_context(
    conversation: Conversation,
    *,
    reason: str,
    category: str,
    journey: str | None = None,
    step: str | None = None,
    summary: str | None = None,
    extra: dict[str, Any] | None = None,
) -> TicketContext:
    state: dict[str, Any] = conversation.state or {}
    lines = last_messages(conversation)
    return TicketContext(
        tenant_id=conversation.tenant_id,
        customer_id=conversation.customer_id,
        conversation_id=conversation.pk,
        journey=_text(journey or state.get("journey")),
        step=_text(step or state.get("step")),
        reason=_text(reason),
        category=category,
        cart=list(state.get("cart") or []),
        order={"order_id": state.get("order_id"), "totals": state.get("order_totals") or {}},
        payment={
            "request_id": state.get("payment_request_id"),
            "status": state.get("payment_status"),
        },
        transcript_summary=printable(summary or "").strip() or summarise(lines, _text(reason)),
        last_messages=lines,
        extra=extra or {},
    )
