"""The Conversations API (issue 18 §5): a helpdesk reads chats and replies as its agent.

The customer asks for a person through the signed webhook; the helpdesk finds them with
its key, reads the chat and replies. The reply is the desk's own act: it claims the
ticket, goes through the outbound gate and is logged under the key's agent.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from tenants.context import tenant_context
from tenants.models import Tenant
from tests.flows.chat import WebhookChat, start_webhook_chat
from tests.handoff.conftest import make_agent
from tulia.api.keys import issue_key
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.handoff.models import HandoffTicket, TicketEvent
from tulia.whatsapp.purposes import AGENT_REPLY

pytestmark = pytest.mark.django_db
API = "/api/v1/conversations/"


@pytest.fixture(autouse=True)
def real_turns(settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000


def _client(tenant: Tenant, agent: Any | None, scopes: tuple[str, ...] = ("conversations",)):
    issued = issue_key(tenant.id, "helpdesk", scopes=scopes, agent_id=agent and agent.pk)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    return client


def _waiting_customer(shop: Tenant) -> WebhookChat:
    chat = start_webhook_chat(shop)
    chat.send("nataka kuongea na mtu wa duka")
    return chat


def _outbound(tenant: Tenant) -> list[OutboundMessage]:
    with tenant_context(tenant.id):
        return list(OutboundMessage.objects.order_by("id"))


def test_helpdesk_finds_the_waiting_customer_and_replies_as_its_agent(shop: Tenant) -> None:
    agent = make_agent(shop, "wanjiru")
    chat = _waiting_customer(shop)
    api = _client(shop, agent)

    waiting = api.get(API, {"waiting": "true"}).json()
    assert [row["id"] for row in waiting["results"]] == [chat.conversation_id]
    assert api.get(API, {"status": "ai_active"}).json()["results"] == []

    state = api.get(f"{API}{chat.conversation_id}/").json()
    assert state["status"] == "waiting"
    assert state["in_reply_window"] is True
    assert [t["status"] for t in state["tickets"]] == ["open"]

    first = api.get(f"{API}{chat.conversation_id}/messages/", {"page_size": 1}).json()
    assert first["count"] >= 2
    assert first["next"]
    assert first["results"][0]["direction"] == "customer"
    assert first["results"][0]["body"] == "nataka kuongea na mtu wa duka"

    answer = api.post(f"{API}{chat.conversation_id}/reply/", {"body": "Niko hapa, nikusaidie aje?"})
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["ticket"]["status"] == "assigned"
    assert body["ticket"]["assigned_to_id"] == agent.pk
    assert [m["body"] for m in body["messages"]] == ["Niko hapa, nikusaidie aje?"]

    # The database: the ticket is the agent's, the reply is logged as theirs and queued.
    with tenant_context(shop.id):
        assert Conversation.objects.get(pk=chat.conversation_id).status == "agent_active"
        ticket = HandoffTicket.objects.get(conversation_id=chat.conversation_id)
        logged = TicketEvent.objects.filter(ticket=ticket, kind=TicketEvent.Kind.REPLY).get()
    assert (ticket.assigned_to_id, logged.actor_id) == (agent.pk, agent.pk)
    sent = _outbound(shop)[-1]
    assert (sent.body, sent.purpose) == ("Niko hapa, nikusaidie aje?", AGENT_REPLY)
    assert sent.request_id.startswith("api-")


def test_a_reply_after_the_window_is_not_sent_free_form(shop: Tenant) -> None:
    agent = make_agent(shop, "wanjiru")
    chat = _waiting_customer(shop)
    with tenant_context(shop.id):
        Conversation.objects.filter(pk=chat.conversation_id).update(
            last_inbound_at=timezone.now() - timedelta(hours=25)
        )
    api = _client(shop, agent)
    assert api.get(f"{API}{chat.conversation_id}/").json()["in_reply_window"] is False
    answer = api.post(f"{API}{chat.conversation_id}/reply/", {"body": "Bado uko?"})
    assert answer.status_code == 201
    # The shop has no approved agent-reply template: recorded as not sent, with why.
    [message] = answer.json()["messages"]
    assert message["status"] == "not_sent"
    assert message["error_message"]


def test_the_bot_keeps_a_chat_nobody_asked_a_person_for(shop: Tenant) -> None:
    agent = make_agent(shop, "wanjiru")
    chat = start_webhook_chat(shop)
    chat.send("hi")
    before = len(_outbound(shop))
    answer = _client(shop, agent).post(f"{API}{chat.conversation_id}/reply/", {"body": "hello"})
    assert answer.status_code == 409
    assert answer.json()["code"] == "no_open_ticket"
    assert answer.json()["request_id"]
    assert len(_outbound(shop)) == before


def test_another_shops_key_sees_nothing_and_changes_nothing(shop: Tenant, stranger: Tenant) -> None:
    make_agent(shop, "wanjiru")
    chat = _waiting_customer(shop)
    theirs = _client(stranger, make_agent(stranger, "otieno"))
    before = len(_outbound(shop))
    assert theirs.get(API).json()["results"] == []
    for path in ("", "messages/"):
        assert theirs.get(f"{API}{chat.conversation_id}/{path}").status_code == 404
    refused = theirs.post(f"{API}{chat.conversation_id}/reply/", {"body": "hi"})
    assert refused.status_code == 404
    assert len(_outbound(shop)) == before
    with tenant_context(shop.id):
        assert HandoffTicket.objects.get().status == "open"


def test_a_key_without_the_conversations_scope_is_forbidden(shop: Tenant) -> None:
    make_agent(shop, "wanjiru")
    chat = _waiting_customer(shop)
    plain = _client(shop, None, scopes=())
    assert plain.get("/api/v1/orders/").status_code == 200  # its own reach is unchanged
    for path in ("", f"{chat.conversation_id}/", f"{chat.conversation_id}/messages/"):
        assert plain.get(f"{API}{path}").status_code == 403
    refused = plain.post(f"{API}{chat.conversation_id}/reply/", {"body": "hi"})
    assert refused.status_code == 403
    assert refused.json()["detail"] == "this API key lacks the conversations scope"


def test_a_conversations_key_must_speak_as_this_shops_staff(shop: Tenant, stranger: Tenant) -> None:
    with pytest.raises(ValidationError):
        issue_key(shop.id, "nobody", scopes=["conversations"])
    with pytest.raises(ValidationError):
        issue_key(
            shop.id, "theirs", scopes=["conversations"], agent_id=make_agent(stranger, "o").pk
        )
