"""A customer talking to the bot, two ways.

`Chat` calls `handle_turn` the way the gateway does: each `send` builds the TurnInput
the pipeline would (state from the last turn, the next turn number, a fresh request id)
and keeps the returned state, as the pipeline stores it.

`WebhookChat` goes the whole way (SPEC §10): a signed Twilio form POSTed to the inbound
webhook → the stored InboundMessage → `pipeline.process_inbound` → `handle_turn` → the
stored OutboundMessage rows and Conversation.state. Its replies are read back from
those rows, its state from the conversation. Nothing is faked either way: the real
graph, tools, database and Redis run.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.models import Customer, Tenant, WhatsAppSender
from tenants.services import get_or_create_customer
from tests.gateway.conftest import event, sign
from tulia.conversations import pipeline
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.conversations.services import open_conversation
from tulia.conversations.turns import TurnInput, TurnOutput
from tulia.whatsapp.schemas import InboundContent

_request_ids = itertools.count(1)
_message_sids = itertools.count(1)
# The Twilio fixture each non-text kind is posted as (tulia/whatsapp/fixtures).
_FORMS = {
    "text": "inbound_text",
    "image": "inbound_image",
    "document": "inbound_document",
    "location": "inbound_location",
    "sticker": "inbound_sticker",
    "voice": "inbound_voice_note",
    "audio": "inbound_voice_note",
}


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

    def send(self, text: str, kind: str = "text", *, duplicate: bool = False) -> str:
        from journeys.handler import handle_turn

        if duplicate:
            raise NotImplementedError("duplicate deliveries need the webhook: use WebhookChat")
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


@dataclass
class WebhookChat(Chat):
    """The same interface as `Chat`, every line through the real webhook and pipeline."""

    client: Client = field(default_factory=Client)

    def send(self, text: str, kind: str = "text", *, duplicate: bool = False) -> str:
        sid = f"SM{next(_message_sids):032x}"
        seen = self._last_outbound_id()
        form = self._form(sid, text, kind)
        for _ in range(2 if duplicate else 1):  # Twilio's retry: same MessageSid again
            assert self._post(form) == 200
        message_id = self._stored(sid)
        ran = pipeline.process_inbound(self.tenant.id, message_id)
        # A second task for a duplicate delivery finds nothing left to do.
        assert pipeline.process_inbound(self.tenant.id, message_id) == 0
        before = self.turn_number
        self._reload()
        assert self.turn_number == before + 1, "one message, one turn"
        reply = "\n".join(self._replies_after(seen, expect_turns=ran))
        self.replies.append(reply)
        return reply

    def _sender(self) -> WhatsAppSender:
        with tenant_context(self.tenant.id) as tid:
            return WhatsAppSender.objects.get(tenant_id=tid, pk=self.sender_id)

    def _form(self, sid: str, text: str, kind: str) -> dict[str, str]:
        sender = self._sender()
        form = event(
            _FORMS[kind],
            MessageSid=sid,
            SmsMessageSid=sid,
            SmsSid=sid,
            AccountSid=sender.twilio_account_sid,
            From=f"whatsapp:{self.customer.phone_e164}",
            To=f"whatsapp:{sender.phone_e164}",
            WaId=self.customer.phone_e164.lstrip("+"),
        )
        form["Body"] = text  # a caption, or nothing, for media
        return form

    def _post(self, form: dict[str, str]) -> int:
        path = reverse("whatsapp:inbound")
        token = self._sender().twilio_auth_token.reveal()
        signature = sign(path, form, token)
        response = self.client.post(path, form, headers={"X-Twilio-Signature": signature})
        return int(response.status_code)

    def _stored(self, sid: str) -> int:
        with tenant_context(self.tenant.id) as tid:
            ids = list(
                InboundMessage.objects.filter(tenant_id=tid, message_sid=sid).values_list(
                    "pk", flat=True
                )
            )
        assert len(ids) == 1, f"MessageSid {sid} stored {len(ids)} times"
        return ids[0]

    def _last_outbound_id(self) -> int:
        with tenant_context(self.tenant.id) as tid:
            last = OutboundMessage.objects.filter(tenant_id=tid).order_by("-id").first()
        return last.pk if last else 0

    def notices_after(self, seen: int) -> str:
        """What reached the customer outside a turn since outbound row `seen` (the notice
        of a payment, an order update, a return decision): they carry no inbound request."""
        with tenant_context(self.tenant.id) as tid:
            rows = OutboundMessage.objects.filter(
                tenant_id=tid, conversation_id=self.conversation_id, pk__gt=seen
            ).order_by("id")
            return "\n".join(rows.values_list("body", flat=True))

    def _replies_after(self, seen: int, *, expect_turns: int) -> list[str]:
        with tenant_context(self.tenant.id) as tid:
            rows = list(
                OutboundMessage.objects.filter(
                    tenant_id=tid, conversation_id=self.conversation_id, pk__gt=seen
                )
                .order_by("id")
                .values_list("body", "request_id")
            )
        # Exactly one turn's reply: every new part carries the one inbound request id.
        assert expect_turns == 1, f"{expect_turns} turns ran for one message"
        assert len({request_id for _, request_id in rows}) <= 1, rows
        return [body for body, _ in rows]

    def _reload(self) -> None:
        with tenant_context(self.tenant.id) as tid:
            conversation = Conversation.objects.get(tenant_id=tid, pk=self.conversation_id)
        self.state = dict(conversation.state)
        self.turn_number = conversation.turn_count


def _opened(tenant: Tenant, phone: str) -> tuple[Customer, int, int]:
    customer, _ = get_or_create_customer(tenant.id, phone)
    with tenant_context(tenant.id) as tid:
        sender = WhatsAppSender.objects.filter(tenant_id=tid).order_by("id").first()
        assert sender is not None, "the tenant fixture registers a sender"
    conversation = open_conversation(tenant.id, customer.pk, sender.pk)
    return customer, conversation.pk, sender.pk


def start_chat(tenant: Tenant, phone: str = "0712345678") -> Chat:
    return Chat(tenant, *_opened(tenant, phone))


def start_webhook_chat(tenant: Tenant, phone: str = "0712345678") -> WebhookChat:
    return WebhookChat(tenant, *_opened(tenant, phone))
