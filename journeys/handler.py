"""The gateway's turn handler: one run of the compiled graph per turn (Property 1).

Set `TULIA_TURN_HANDLER = "journeys.handler.handle_turn"`. The state comes in with the
turn and goes back out to be stored by the gateway with the replies (never saved per
node). A conversation handed to a person (waiting / agent_active) still runs the
graph, which takes it past every journey: a STOP is honoured, a waiting customer hears
the queue or opening-hours notice at most once an interval, and nothing else is said.
A resolved or closed conversation gets no bot reply and its state is left alone.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from journeys.context import RunContext
from journeys.flows.state import FlowState
from journeys.graph import GraphContext, compiled
from journeys.nodes.deps import EngineDeps
from journeys.sanitize import sanitize_inbound
from journeys.state import new_state, stored
from journeys.upgrade import upgrade
from tenants.accessors import get_customer
from tenants.context import tenant_context
from tulia.conversations.models import Conversation
from tulia.conversations.turns import TurnInput, TurnOutput

logger = logging.getLogger("tulia.journeys")

_TEXTUAL = {"text", "button", "list"}


@cache
def _deps() -> EngineDeps:
    return EngineDeps.from_env()


def _status(turn: TurnInput) -> str | None:
    if turn.conversation_status is not None:  # the pipeline read it with the turn's claim
        return turn.conversation_status
    with tenant_context(turn.tenant_id) as tid:
        return (
            Conversation.objects.filter(tenant_id=tid, pk=turn.conversation_id)
            .values_list("status", flat=True)
            .first()
        )


def _inbound(turn: TurnInput) -> tuple[str, str]:
    """The merged text of the burst (sanitised) and what kind the latest message was."""
    texts = [m.text or m.button_payload for m in turn.messages if m.kind in _TEXTUAL]
    kind = "text" if turn.messages[-1].kind in _TEXTUAL else turn.messages[-1].kind
    return sanitize_inbound("\n".join(t for t in texts if t)).text, kind


def _phone(turn: TurnInput) -> str:
    with tenant_context(turn.tenant_id):
        return get_customer(turn.tenant_id, turn.customer_id).phone_e164


def initial_state(turn: TurnInput, status: str = Conversation.Status.AI_ACTIVE) -> FlowState:
    """Last turn's state (or a new one), brought up to the current shape, with this
    turn's identity, message and status, and an empty path for this turn's nodes."""
    identity = {
        "tenant_id": str(turn.tenant_id),
        "conversation_id": str(turn.conversation_id),
        "request_id": turn.request_id,
    }
    state: dict[str, Any] = {**new_state(**identity), **upgrade(turn.state), **identity}
    state["graph_path"] = []
    text, kind = _inbound(turn)
    state.update(customer_id=str(turn.customer_id), inbound_text=text, inbound_kind=kind)
    state["conversation_status"] = status
    state["turn_count"] = max(turn.turn_number - 1, 0)  # begin() counts this turn
    if not state.get("phone_e164"):
        state["phone_e164"] = _phone(turn)
    return FlowState(**state)  # type: ignore[typeddict-item]


def run_graph(turn: TurnInput, state: FlowState) -> dict[str, Any]:
    ctx = RunContext(
        tenant_id=str(turn.tenant_id),
        customer_id=str(turn.customer_id),
        conversation_id=str(turn.conversation_id),
        request_id=turn.request_id,
    )
    # Bound to the tenant: its plan's model, and every LLM call metered to it.
    deps = _deps().for_turn(ctx.tenant_id)
    result: dict[str, Any] = compiled().invoke(state, context=GraphContext(ctx, deps))
    return result


def handle_turn(turn: TurnInput) -> TurnOutput:
    status = _status(turn)
    if status not in Conversation.OPEN_STATUSES:
        return TurnOutput(replies=[], state=None)
    result = run_graph(turn, initial_state(turn, str(status)))
    reply = result.get("response_text")
    return TurnOutput(replies=[reply] if reply else [], state=stored(result))
