"""The pluggable turn handler: what the bot says to the messages of one turn.

The gateway owns delivery, ordering and persistence; the handler owns the answer. It
is picked by dotted path from `settings.TULIA_TURN_HANDLER` (read from the environment
variable of the same name at start-up, so a worker subprocess can be pointed at another
one): the conversation engine's graph.

Contract for handlers:
- Called outside any database transaction and outside a tenant context: open
  `tenant_context(turn.tenant_id)` for any reads. Slow work (LLM calls) holds no locks.
- Called for every open conversation, including one handed to a person (`waiting`,
  `agent_active`, given in `conversation_status`): the handler decides what, if
  anything, is said then (a STOP confirmation, a queue notice), never a normal answer.
- Return the new conversation state in `TurnOutput.state` rather than saving it: the
  pipeline writes it in the same transaction as the replies and the "processed" mark,
  so a crash mid-turn retries the whole turn against the old state, never half of it.
- May be called again for the same messages after a crash (at-least-once), and, when
  a worker stalls past its lease, while the stalled call is still running (only one of
  the two is ever written); side effects outside that transaction must therefore be
  idempotent, keyed by something the retry computes alike (`request_id`, or the state
  the turn started from: an STK push is keyed by order and attempt number, and the
  attempt number comes from the unchanged stored state).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.utils.module_loading import import_string
from pydantic import BaseModel, ConfigDict, Field

from tulia.whatsapp.schemas import InboundContent


class TurnInput(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: UUID
    conversation_id: int
    customer_id: int
    sender_id: int
    request_id: str
    # One or more messages (more when a burst was merged), oldest first.
    messages: list[InboundContent] = Field(min_length=1)
    inbound_message_ids: list[int] = Field(min_length=1)
    state: dict[str, Any] = Field(default_factory=dict)
    turn_number: int = 0
    # As the pipeline read it when it claimed the turn; None: the handler looks it up.
    conversation_status: str | None = None


class TurnOutput(BaseModel):
    model_config = ConfigDict(frozen=True)

    replies: list[str] = Field(default_factory=list)
    # None keeps the stored state unchanged.
    state: dict[str, Any] | None = None


TurnHandler = Callable[[TurnInput], TurnOutput]


def handler_path() -> str:
    return str(settings.TULIA_TURN_HANDLER)


def get_turn_handler() -> TurnHandler:
    handler: TurnHandler = import_string(handler_path())
    return handler
