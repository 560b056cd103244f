"""handoff_create_ticket: hand the conversation to a person with everything they need.

Idempotent per open conversation: calling it again returns the same ticket. The reply
in `message` is honest about hours, agents and waiting; the graph sends it as is or
rephrases it without changing the facts. It is in `language`, the language of the turn
being answered, when the caller gives one: the stored state still holds last turn's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.contract import Tool, ToolFailure, ToolInput, ToolOutput
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category, Priority

CategoryName = Literal[
    "human_request",
    "payment_dispute",
    "refund",
    "return",
    "delivery_complaint",
    "missing_info",
    "tool_errors",
    "sensitive",
    "frustration",
    "keyword",
]


class HandoffCreateTicketInput(ToolInput):
    reason: str = Field(min_length=1, max_length=300)
    category: CategoryName
    priority: Literal["low", "normal", "high", "urgent"] | None = None
    journey: str | None = Field(default=None, max_length=40)
    step: str | None = Field(default=None, max_length=60)
    transcript_summary: str | None = Field(default=None, max_length=2000)
    language: Literal["en", "sw", "sheng"] | None = None


class HandoffCreateTicketOutput(ToolOutput):
    ticket_id: int | None
    created: bool
    outcome: str
    queue_position: int | None
    estimated_wait_minutes: int | None
    message: str


def run(data: HandoffCreateTicketInput) -> HandoffCreateTicketOutput:
    if data.conversation_id is None:
        raise ToolFailure("invalid_input", "a handoff needs the conversation")
    request = HandoffRequest(
        reason=data.reason,
        category=Category(data.category),
        priority=Priority(data.priority) if data.priority else None,
        journey=data.journey,
        step=data.step,
        summary=data.transcript_summary,
        request_id=data.request_id,
        language=data.language,
    )
    result = escalate(data.tenant_id, data.conversation_id, request)  # HandoffError maps itself
    return HandoffCreateTicketOutput(
        ticket_id=result.ticket_id,
        created=result.created,
        outcome=result.outcome.value,
        queue_position=result.queue_position,
        estimated_wait_minutes=result.estimated_wait_minutes,
        message=result.message,
    )


TOOL = Tool(
    name="handoff_create_ticket",
    description=(
        "Hand the conversation to a human agent (explicit request, payment dispute, refund, "
        "complaint, missing information, repeated errors, sensitive topic, frustration). "
        "Returns the ticket and an honest message for the customer."
    ),
    input_model=HandoffCreateTicketInput,
    output_model=HandoffCreateTicketOutput,
    run=run,
)
