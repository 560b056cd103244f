"""The desk over the tenant REST API; a stranger tenant's staff see and change nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import CannedReply, Category, HandoffTicket

from .conftest import client_for, make_agent, status_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def ticket_id(tenant, conversation) -> int:
    found = escalate(tenant.id, conversation.pk, HandoffRequest("person", Category.KEYWORD))
    assert found.ticket_id is not None
    return found.ticket_id


def _action(ticket_id: int, action: str) -> str:
    return reverse("handoff-api:ticket-action", args=[ticket_id, action])


def test_queue_lists_waiting_tickets_with_position(tenant, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    rows = client_for(alice).get(reverse("handoff-api:queue")).json()
    assert [(r["id"], r["queue_position"]) for r in rows] == [(ticket_id, 1)]
    assert rows[0]["context"]["journey"] == "sales"


def test_claim_reply_and_resolve_over_the_api(tenant, conversation, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    client = client_for(alice)
    assert client.post(_action(ticket_id, "claim")).json()["assigned_to_id"] == alice.pk
    again = client.post(_action(ticket_id, "claim"))
    assert (again.status_code, again.json()["code"]) == (409, "already_claimed")
    assert again.json()["request_id"]
    sent = client.post(_action(ticket_id, "reply"), {"body": "Habari! Alice here."})
    assert sent.status_code == 200
    with tenant_context(tenant.id):
        bodies = list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))
    assert bodies[-1] == "Habari! Alice here."
    assert client.post(_action(ticket_id, "resolve")).json()["status"] == "resolved"
    assert status_of(tenant, conversation.pk) == "resolved"


def test_reply_outside_24h_window_is_recorded_not_sent(tenant, conversation, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    client = client_for(alice)
    client.post(_action(ticket_id, "claim"))
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(
            last_inbound_at=timezone.now() - timedelta(days=2)
        )
    # The gate decides: no approved "agent reply waiting" template here, so the reply
    # is kept as not sent, with the reason (tests/gateway/test_window_paths.py).
    assert client.post(_action(ticket_id, "reply"), {"body": "hello?"}).status_code == 200
    with tenant_context(tenant.id):
        row = OutboundMessage.objects.latest("id")
    assert (row.body, row.status) == ("hello?", OutboundMessage.Status.NOT_SENT)
    assert "outside the 24-hour window" in row.error_message


def test_notes_and_canned_replies(tenant, ticket_id) -> None:
    alice = make_agent(tenant, "alice")
    with tenant_context(tenant.id) as tid:
        CannedReply.objects.create(tenant_id=tid, title="Hours", body="We open at 8.")
    client = client_for(alice)
    client.post(_action(ticket_id, "notes"), {"body": "Check M-Pesa statement"})
    detail = client.get(reverse("handoff-api:ticket", args=[ticket_id])).json()
    assert [(e["kind"], e["body"]) for e in detail["events"]][-1] == (
        "note",
        "Check M-Pesa statement",
    )
    canned = client.get(reverse("handoff-api:canned-replies")).json()
    assert [c["title"] for c in canned] == ["Hours"]


def test_stranger_staff_see_and_change_nothing(tenant, stranger, conversation, ticket_id):
    intruder = make_agent(stranger, "eve")
    client = client_for(intruder)
    before = status_of(tenant, conversation.pk)
    assert client.get(reverse("handoff-api:queue")).json() == []
    assert client.get(reverse("handoff-api:ticket", args=[ticket_id])).status_code == 404
    for action in ("claim", "transfer", "hand-back", "resolve"):
        assert client.post(_action(ticket_id, action)).status_code == 404, action
    assert client.post(_action(ticket_id, "reply"), {"body": "hi"}).status_code == 404
    assert client.post(_action(ticket_id, "notes"), {"body": "x"}).status_code == 404
    with tenant_context(tenant.id):
        ticket = HandoffTicket.objects.get(pk=ticket_id)
        assert OutboundMessage.objects.count() == 0
    assert (ticket.status, ticket.assigned_to_id) == ("open", None)
    assert status_of(tenant, conversation.pk) == before


def test_anonymous_and_staff_without_tenant_are_refused(tenant, ticket_id) -> None:
    assert Client().get(reverse("handoff-api:queue")).status_code in (401, 403)
    loner = add_staff_member(tenant.id, username="loner", password="x-Pass-1234", role="agent")
    with tenant_context(tenant.id):
        from tenants.models import TenantMembership

        TenantMembership.objects.filter(user_id=loner.pk).delete()
    assert client_for(loner).get(reverse("handoff-api:queue")).status_code == 403


def test_customer_messages_sent_while_waiting_are_shown_to_agents(
    tenant, conversation, ticket_id
) -> None:
    from tulia.conversations.models import InboundMessage

    with tenant_context(tenant.id) as tid:
        InboundMessage.objects.create(
            tenant_id=tid,
            sender_id=conversation.sender_id,
            conversation=conversation,
            message_sid="SM" + "1" * 32,
            from_e164="+254712000999",
            kind="text",
            body="Bado mko? My order is late",
            request_id="r-9",
            received_at=timezone.now(),
        )
    client = client_for(make_agent(tenant, "alice"))
    client.post(_action(ticket_id, "claim"))
    client.post(_action(ticket_id, "reply"), {"body": "Yes! Checking with the rider."})
    detail = client.get(reverse("handoff-api:ticket", args=[ticket_id]))
    assert [(m["direction"], m["body"]) for m in detail.json()["messages"]] == [
        ("customer", "Bado mko? My order is late"),
        ("shop", "Alice from our team has joined the chat."),
        ("shop", "Yes! Checking with the rider."),
    ]
