"""Agent desk operations: reply through the gateway, notes, transfer, hand back, resolve."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.handoff import desk
from tulia.handoff.errors import NotYourTicket
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category, HandoffTicket, TicketEvent

from .conftest import make_agent, status_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def claimed(tenant, conversation):
    alice = make_agent(tenant, "alice")
    ticket_id = escalate(
        tenant.id, conversation.pk, HandoffRequest("asked for a person", Category.HUMAN_REQUEST)
    ).ticket_id
    assert ticket_id is not None
    desk.claim(tenant.id, ticket_id, alice.pk)
    return ticket_id, alice


def _outbound(tenant) -> list[str]:
    with tenant_context(tenant.id):
        return list(OutboundMessage.objects.values_list("body", flat=True))


def test_reply_goes_out_through_the_gateway(tenant, claimed) -> None:
    ticket_id, alice = claimed
    ids = desk.reply(tenant.id, ticket_id, alice.pk, "Hi, Alice here. Size 42 is back.", "r-1")
    assert len(ids) == 1
    assert _outbound(tenant) == [
        "Alice from our team has joined the chat.",
        "Hi, Alice here. Size 42 is back.",
    ]


def test_reply_outside_the_24_hour_window_is_recorded_not_sent_with_why(
    tenant, conversation, claimed
):
    """No approved "agent reply waiting" template here: the reply is kept, marked not
    sent with the reason (tests/gateway/test_window_paths.py sends the template)."""
    ticket_id, alice = claimed
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(
            last_inbound_at=timezone.now() - timedelta(hours=24, minutes=1)
        )
    (message_id,) = desk.reply(tenant.id, ticket_id, alice.pk, "Are you still there?", "r-2")
    with tenant_context(tenant.id):
        row = OutboundMessage.objects.get(pk=message_id)
    assert (row.status, row.body) == (OutboundMessage.Status.NOT_SENT, "Are you still there?")
    assert "outside the 24-hour window" in row.error_message


def test_only_the_assigned_agent_replies(tenant, claimed) -> None:
    ticket_id, _ = claimed
    bob = make_agent(tenant, "bob")
    before = _outbound(tenant)
    with pytest.raises(NotYourTicket):
        desk.reply(tenant.id, ticket_id, bob.pk, "hello", "r-3")
    assert _outbound(tenant) == before


def test_internal_note_is_never_sent(tenant, claimed) -> None:
    ticket_id, alice = claimed
    before = _outbound(tenant)
    desk.add_note(tenant.id, ticket_id, alice.pk, "VIP, be gentle")
    assert _outbound(tenant) == before
    with tenant_context(tenant.id):
        assert TicketEvent.objects.filter(kind="note", body="VIP, be gentle").count() == 1


def test_transfer_puts_it_back_in_the_queue(tenant, conversation, claimed) -> None:
    ticket_id, alice = claimed
    ticket = desk.transfer(tenant.id, ticket_id, alice.pk)
    assert (ticket.status, ticket.assigned_to_id) == ("open", None)
    assert status_of(tenant, conversation.pk) == "waiting"


def test_hand_back_resumes_the_bot_at_the_paused_step(tenant, conversation, claimed) -> None:
    ticket_id, alice = claimed
    assert desk.hand_back(tenant.id, ticket_id, alice.pk) == "ai_active"
    with tenant_context(tenant.id):
        conversation_now = Conversation.objects.get(pk=conversation.pk)
        ticket = HandoffTicket.objects.get(pk=ticket_id)
    assert conversation_now.state == {"journey": "sales", "step": "select_item"}
    assert ticket.status == "resolved"
    assert ticket.context["step"] == "select_item"


@pytest.mark.parametrize(("close", "final"), [(False, "resolved"), (True, "closed")])
def test_resolve_or_close_ends_the_conversation(tenant, conversation, claimed, close, final):
    ticket_id, alice = claimed
    assert desk.resolve(tenant.id, ticket_id, alice.pk, close=close) == final
    assert status_of(tenant, conversation.pk) == final
    with pytest.raises(NotYourTicket):
        desk.reply(tenant.id, ticket_id, alice.pk, "one more thing", "r-4")


def test_stranger_tenant_cannot_claim_reply_or_note(tenant, stranger, conversation) -> None:
    from tenants.errors import NotFound
    from tulia.handoff.errors import NotStaff

    ticket_id = escalate(
        tenant.id, conversation.pk, HandoffRequest("x", Category.KEYWORD)
    ).ticket_id
    assert ticket_id is not None
    eve = make_agent(stranger, "eve")
    with pytest.raises(NotFound):
        desk.claim(stranger.id, ticket_id, eve.pk)
    with pytest.raises(NotFound):
        desk.add_note(stranger.id, ticket_id, eve.pk, "peek")
    with pytest.raises(NotFound):
        desk.reply(stranger.id, ticket_id, eve.pk, "hi", "r")
    with pytest.raises(NotStaff):  # her login does not work in this tenant either
        desk.claim(tenant.id, ticket_id, eve.pk)
    with tenant_context(tenant.id):
        ticket = HandoffTicket.objects.get(pk=ticket_id)
        assert TicketEvent.objects.filter(ticket_id=ticket_id).count() == 1  # just "opened"
    assert (ticket.status, ticket.assigned_to_id) == ("open", None)
    assert _outbound(tenant) == []


def test_joining_is_not_announced_outside_the_24_hour_window(tenant, conversation) -> None:
    alice = make_agent(tenant, "alice")
    ticket_id = escalate(
        tenant.id, conversation.pk, HandoffRequest("x", Category.KEYWORD)
    ).ticket_id
    assert ticket_id is not None
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(
            last_inbound_at=timezone.now() - timedelta(hours=30)
        )
    desk.claim(tenant.id, ticket_id, alice.pk)  # the claim itself still succeeds
    assert _outbound(tenant) == []
    assert status_of(tenant, conversation.pk) == "agent_active"


def test_swahili_customer_hears_the_agent_join_in_swahili(tenant) -> None:
    from .conftest import make_conversation

    alice = make_agent(tenant, "alice")
    conversation = make_conversation(tenant, state={"response_language": "sw"})
    ticket_id = escalate(
        tenant.id, conversation.pk, HandoffRequest("x", Category.KEYWORD)
    ).ticket_id
    assert ticket_id is not None
    desk.claim(tenant.id, ticket_id, alice.pk)
    assert _outbound(tenant) == ["Alice wa timu yetu amejiunga na mazungumzo."]
