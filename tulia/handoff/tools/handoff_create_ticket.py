"""handoff_create_ticket: hand the conversation to a person with everything they need.

Idempotent per open conversation: calling it again returns the same ticket. The reply
in `message` is honest about hours, agents and waiting; the graph sends it as is or
rephrases it without changing the facts. It is in `language`, the language of the turn
being answered, when the caller gives one: the stored state still holds last turn's.
"""

from __future__ import annotations

from typing import Literal

from django.contrib.auth import get_user_model
from django.utils import timezone
from pydantic import Field

from tenants.accessors import get_tenant
from tools.contract import Tool, ToolFailure, ToolInput, ToolOutput
from tulia.handoff import hours
from tulia.handoff.errors import HandoffError
from tulia.handoff.escalation import HandoffRequest, HandoffResult, escalate
from tulia.handoff.messages import customer_message
from tulia.handoff.models import Category, Priority
from tulia.handoff.policy import Assignment

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
    )
    try:
        result = escalate(data.tenant_id, data.conversation_id, request)
    except HandoffError as exc:
        raise ToolFailure(exc.code, exc.message) from exc
    message = result.message if data.language is None else _told(data, result)
    return HandoffCreateTicketOutput(
        ticket_id=result.ticket_id,
        created=result.created,
        outcome=result.outcome.value,
        queue_position=result.queue_position,
        estimated_wait_minutes=result.estimated_wait_minutes,
        message=message,
    )


# The handoff texts exist in English and Kiswahili; Sheng speakers read the Kiswahili.
_TEXT_LANGUAGE = {"en": "en", "sw": "sw", "sheng": "sw"}


def _told(data: HandoffCreateTicketInput, result: HandoffResult) -> str:
    """The same facts as `result.message` (outcome, queue, hours), in the turn's language."""
    tenant = get_tenant(data.tenant_id)
    assignment = Assignment(
        outcome=result.outcome,
        agent_id=result.agent_id,
        queue_position=result.queue_position,
        estimated_wait_minutes=result.estimated_wait_minutes,
    )
    return customer_message(
        assignment,
        language=_TEXT_LANGUAGE[data.language or "en"],
        ticket_opened=result.ticket_id is not None,
        agent_name=_agent_name(result.agent_id),
        next_opening=hours.next_opening(
            tenant.handoff_settings.business_hours, tenant.timezone, timezone.now()
        ),
    )


def _agent_name(agent_id: int | None) -> str:
    agent = get_user_model().objects.filter(pk=agent_id).first() if agent_id else None
    return (agent.get_short_name() or agent.get_username()) if agent else ""


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
