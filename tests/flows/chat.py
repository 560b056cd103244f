"""A customer talking to the bot through `handle_turn`, the way the gateway calls it.

Each `send` builds the TurnInput the pipeline would (state from the last turn, the
next turn number, a fresh request id) and keeps the returned state, as the pipeline
stores it. Nothing is faked: the real graph, tools, database and Redis run.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from tenants.context import tenant_context
from tenants.models import Customer, Tenant, WhatsAppSender
from tenants.services import get_or_create_customer
from tulia.conversations.models import Conversation
from tulia.conversations.services import open_conversation
from tulia.conversations.turns import TurnInput, TurnOutput
from tulia.whatsapp.schemas import InboundContent

_request_ids = itertools.count(1)


@dataclass
class Chat:
    tenant: Tenant
    customer: Customer
    conversation_id: int
    sender_id: int
    state: dict[str, Any] = field(default_factory=dict)
    turn_number: int = 0
    replies: list[str] = field(default_factory=list)

    def turn_input(self, text: str, kind: str = "text") -> TurnInput:
        content = InboundContent(kind=kind, text=text)
        return TurnInput(
            tenant_id=self.tenant.id,
            conversation_id=self.conversation_id,
            customer_id=self.customer.pk,
            sender_id=self.sender_id,
            request_id=f"req-flow-{next(_request_ids)}",
            messages=[content],
            inbound_message_ids=[self.turn_number + 1],
            state=self.state,
            turn_number=self.turn_number + 1,
        )

    def send(self, text: str, kind: str = "text") -> str:
        from journeys.handler import handle_turn

        output: TurnOutput = handle_turn(self.turn_input(text, kind))
        self.turn_number += 1
        if output.state is not None:
            self.state = output.state
        self._store()
        reply = "\n".join(output.replies)
        self.replies.append(reply)
        return reply

    def _store(self) -> None:
        """What the pipeline does after the turn: the state and the count, one write."""
        with tenant_context(self.tenant.id) as tid:
            Conversation.objects.filter(tenant_id=tid, pk=self.conversation_id).update(
                state=self.state, turn_count=self.turn_number
            )


def start_chat(tenant: Tenant, phone: str = "0712345678") -> Chat:
    customer, _ = get_or_create_customer(tenant.id, phone)
    with tenant_context(tenant.id) as tid:
        sender = WhatsAppSender.objects.filter(tenant_id=tid).order_by("id").first()
        assert sender is not None, "the tenant fixture registers a sender"
    conversation = open_conversation(tenant.id, customer.pk, sender.pk)
    return Chat(tenant, customer, conversation.pk, sender.pk)
