"""The agent desk in Django admin: queue, desk page operations, tenant scoping."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tulia.conversations.models import OutboundMessage
from tulia.handoff.models import AgentPresence, CannedReply, HandoffTicket, TicketEvent

from .conftest import client_for, desk_url, make_agent, status_of

pytestmark = pytest.mark.django_db

QUEUE = "/admin/handoff/handoffticket/"


def test_queue_shows_this_tenants_tickets_with_waiting_time(tenant, ticket_id) -> None:
    page = client_for(make_agent(tenant, "alice")).get(QUEUE)
    assert page.status_code == 200
    assert desk_url(ticket_id) in page.content.decode()


def test_desk_claim_canned_reply_note_and_hand_back(tenant, conversation, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    with tenant_context(tenant.id) as tid:
        canned = CannedReply.objects.create(tenant_id=tid, title="Hi", body="Karibu! Nisaidie?")
    client = client_for(alice)
    assert "Claim" in client.get(desk_url(ticket_id)).content.decode()
    client.post(desk_url(ticket_id), {"op": "claim"})
    client.post(desk_url(ticket_id), {"op": "reply", "body": "", "canned": str(canned.pk)})
    client.post(desk_url(ticket_id), {"op": "note", "body": "called the rider"})
    client.post(desk_url(ticket_id), {"op": "hand_back"})
    with tenant_context(tenant.id):
        sent = list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))
        kinds = list(TicketEvent.objects.order_by("id").values_list("kind", flat=True))
    assert kinds == ["opened", "claimed", "reply", "note", "handed_back"]
    assert sent == [
        "Alice from our team has joined the chat.",
        "Karibu! Nisaidie?",
        "Thanks for waiting. I'm the shop assistant again; let's carry on.",
    ]
    assert status_of(tenant, conversation.pk) == "ai_active"


def test_desk_presence_switch(tenant, ticket_id) -> None:
    alice = make_agent(tenant, "alice", presence="offline")
    client_for(alice).post(desk_url(ticket_id), {"op": "presence", "presence": "away"})
    with tenant_context(tenant.id):
        assert AgentPresence.objects.get(user=alice).status == "away"


def test_stranger_staff_cannot_see_or_act_on_thedesk_url(tenant, stranger, ticket_id) -> None:
    client = client_for(make_agent(stranger, "eve"))
    assert desk_url(ticket_id) not in client.get(QUEUE).content.decode()
    assert client.get(desk_url(ticket_id)).status_code == 404
    assert client.post(desk_url(ticket_id), {"op": "claim"}).status_code == 404
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.get(pk=ticket_id).status == "open"


def test_claim_action_from_the_queue(tenant, conversation, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    client_for(alice).post(
        QUEUE, {"action": "claim_selected", "_selected_action": [str(ticket_id)], "index": "0"}
    )
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.get(pk=ticket_id).assigned_to_id == alice.pk
    assert status_of(tenant, conversation.pk) == "agent_active"
