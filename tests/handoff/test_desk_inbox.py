"""The live agent inbox in Django admin: poll endpoint, counts, consistent actions,
presence from activity, a readable thread and customer card, the conversation page."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from payments.models import PaymentRequest
from tenants.context import tenant_context
from tulia.conversations.models import InboundMessage, OutboundMessage
from tulia.handoff import desk
from tulia.handoff.models import AgentPresence, HandoffTicket, TicketEvent

from .conftest import client_for, desk_url, make_agent, make_conversation, make_order, status_of

pytestmark = pytest.mark.django_db

LIVE = "/admin/handoff/handoffticket/live/"


def _customer_writes(tenant, conversation, body: str, sid: str) -> None:
    with tenant_context(tenant.id) as tid:
        InboundMessage.objects.create(
            tenant_id=tid, sender_id=conversation.sender_id, conversation=conversation,
            message_sid=sid, from_e164="+254712000100", kind="text", body=body,
            request_id=f"r-{sid}", received_at=timezone.now(), status="processed",
        )  # fmt: skip


def test_live_counts_waiting_and_answers_304_while_nothing_changes(tenant, ticket_id) -> None:
    client = client_for(make_agent(tenant, "alice"))
    first = client.get(LIVE)
    assert first.json()["waiting"] == 1
    unchanged = client.get(LIVE, headers={"If-None-Match": first["ETag"]})
    assert unchanged.status_code == 304


def test_live_version_moves_when_the_customer_writes(tenant, conversation, ticket_id) -> None:
    client = client_for(make_agent(tenant, "alice"))
    url = f"{LIVE}?conversation={conversation.pk}"
    before = client.get(url)["ETag"]
    _customer_writes(tenant, conversation, "Bado mko?", "SM" + "2" * 32)
    after = client.get(url, headers={"If-None-Match": before})
    assert after.status_code == 200
    assert after["ETag"] != before


def test_unread_counts_customer_messages_after_the_agents_last_word(
    tenant, conversation, ticket_id
) -> None:
    alice = make_agent(tenant, "alice")
    client = client_for(alice)
    client.post(desk_url(ticket_id), {"op": "reply", "body": "Hi, Alice here."})
    assert client.get(LIVE).json()["unread"] == 0
    with tenant_context(tenant.id):
        conversation.__class__.objects.filter(pk=conversation.pk).update(
            last_inbound_at=timezone.now()
        )
    assert client.get(LIVE + "?active=1").json() | {"version": ""} == {
        "version": "", "presence": "online", "waiting": 0, "mine": 1, "unread": 1,
    }  # fmt: skip


def test_a_desks_poll_carries_its_changed_regions(tenant, conversation, ticket_id) -> None:
    """One request from the customer's message to the desk's screen: the poll that sees
    the change answers with the desk's regions, not a hint to fetch the page again."""
    client = client_for(make_agent(tenant, "alice"))
    url = f"{LIVE}?conversation={conversation.pk}&ticket={ticket_id}"
    before = client.get(url)
    assert 'data-region="thread"' in before.json()["regions"]
    _customer_writes(tenant, conversation, "Bado mko? Nangoja *sana*", "SM" + "5" * 32)
    after = client.get(url, headers={"If-None-Match": before["ETag"]}).json()
    regions = after["regions"]
    assert "Nangoja <strong>sana</strong>" in regions
    assert [region in regions for region in ("head", "thread", "side", "actions")] == [True] * 4
    assert 'value="claim"' in regions  # the actions as the ticket stands now
    assert (
        client.get(url, headers={"If-None-Match": after["version"].join('""')}).status_code == 304
    )


def test_a_poll_naming_another_shops_ticket_gets_no_regions(
    tenant, stranger, conversation, ticket_id
) -> None:
    client = client_for(make_agent(stranger, "eve"))
    found = client.get(f"{LIVE}?conversation={conversation.pk}&ticket={ticket_id}").json()
    assert "regions" not in found


def test_stranger_staff_poll_sees_none_of_this_tenant(
    tenant, stranger, conversation, ticket_id
) -> None:
    client = client_for(make_agent(stranger, "eve"))
    counts = client.get(f"{LIVE}?conversation={conversation.pk}").json()
    assert (counts["waiting"], counts["mine"], counts["unread"]) == (0, 0, 0)
    _customer_writes(tenant, conversation, "Bado mko?", "SM" + "4" * 32)
    # the other tenant's conversation reads exactly like one that does not exist
    theirs = client.get(f"{LIVE}?conversation={conversation.pk}")["ETag"]
    assert theirs == client.get(f"{LIVE}?conversation=999999")["ETag"]


def test_anonymous_poll_is_sent_to_login(ticket_id) -> None:
    assert Client().get(LIVE).status_code == 302


def test_reply_to_a_waiting_customer_claims_the_ticket_in_one_post(
    tenant, conversation, ticket_id
) -> None:
    alice = make_agent(tenant, "alice")
    client_for(alice).post(desk_url(ticket_id), {"op": "reply", "body": "Karibu, *naangalia*"})
    with tenant_context(tenant.id):
        ticket = HandoffTicket.objects.get(pk=ticket_id)
        sent = list(OutboundMessage.objects.order_by("id").values_list("body", flat=True))
    assert (ticket.status, ticket.assigned_to_id) == ("assigned", alice.pk)
    assert sent[-2:] == ["Alice from our team has joined the chat.", "Karibu, *naangalia*"]
    assert status_of(tenant, conversation.pk) == "agent_active"


def test_after_hand_back_the_desk_offers_reopen_not_a_reply_that_fails(
    tenant, conversation, ticket_id
) -> None:
    alice = make_agent(tenant, "alice")
    client = client_for(alice)
    client.post(desk_url(ticket_id), {"op": "reply", "body": "Sorted, over to the bot."})
    client.post(desk_url(ticket_id), {"op": "hand_back"})
    page = client.get(desk_url(ticket_id)).content.decode()
    assert 'value="reply"' not in page
    assert 'value="reopen"' in page
    reopened = client.post(desk_url(ticket_id), {"op": "reopen"})
    with tenant_context(tenant.id):
        newest = HandoffTicket.objects.latest("id")
    assert reopened["Location"] == desk_url(newest.pk)
    assert (newest.status, newest.assigned_to_id) == ("assigned", alice.pk)
    assert 'value="reply"' in client.get(desk_url(newest.pk)).content.decode()


def test_a_colleagues_ticket_offers_notes_only(tenant, ticket_id) -> None:
    desk.claim(tenant.id, ticket_id, make_agent(tenant, "bob").pk)
    page = client_for(make_agent(tenant, "alice")).get(desk_url(ticket_id)).content.decode()
    assert 'value="note"' in page
    assert not any(f'value="{op}"' in page for op in ("reply", "claim", "hand_back", "reopen"))


def test_presence_follows_activity(tenant, ticket_id) -> None:
    alice = make_agent(tenant, "alice", presence="offline")
    client = client_for(alice)

    def status() -> str:
        with tenant_context(tenant.id):
            return AgentPresence.objects.get(user=alice).status

    client.get(LIVE + "?active=0")
    assert status() == "offline"  # idling does not announce someone who went offline
    client.get(LIVE + "?active=1")
    assert status() == "online"
    client.get(LIVE + "?active=0")
    assert status() == "away"


def test_thread_tells_customer_bot_and_agent_apart_and_formats_safely(
    tenant, conversation, ticket_id
) -> None:
    _customer_writes(tenant, conversation, "<b>hi</b> *size 42*", "SM" + "3" * 32)
    alice = make_agent(tenant, "alice")
    client = client_for(alice)
    client.post(desk_url(ticket_id), {"op": "reply", "body": "Checking _now_"})
    client.post(desk_url(ticket_id), {"op": "note", "body": "rider called"})
    page = client.get(desk_url(ticket_id)).content.decode()
    assert "&lt;b&gt;hi&lt;/b&gt; <strong>size 42</strong>" in page
    assert '<div class="inbox-bubble inbox-agent">' in page
    assert "Checking <em>now</em>" in page
    assert '<div class="inbox-bubble inbox-note">' in page
    assert '<div class="inbox-bubble inbox-bot">' in page  # the queue message the bot sent


def test_card_shows_phone_and_payments_as_they_are_now(tenant, conversation, ticket_id) -> None:
    order = make_order(tenant, conversation, "KN-7781", delivered_days_ago=None)
    with tenant_context(tenant.id) as tid:
        payment = PaymentRequest.objects.create(
            tenant_id=tid, order=order, customer_id=conversation.customer_id,
            method="mpesa_stk", idempotency_key="k-1", amount=Decimal("4500"),
        )  # fmt: skip
        PaymentRequest.objects.filter(pk=payment.pk).update(status="paid", receipt="QK12AB")
        phone = conversation.customer.phone_e164
    page = client_for(make_agent(tenant, "alice")).get(desk_url(ticket_id)).content.decode()
    assert phone in page
    assert "<strong>Paid</strong> KES 4500.00" in page
    assert "KN-7781" in page


def test_admin_pages_show_the_waiting_count(tenant, ticket_id) -> None:
    agent = client_for(make_agent(tenant, "alice"))
    page = agent.get("/admin/", follow=True).content.decode()  # agents land on the inbox
    assert 'data-count="waiting">1<' in page


def test_ticket_record_url_leads_to_thedesk_url(tenant, ticket_id) -> None:
    client = client_for(make_agent(tenant, "alice"))
    change = reverse("admin:handoff_handoffticket_change", args=[ticket_id])
    assert client.get(change)["Location"] == desk_url(ticket_id)


def test_conversation_page_reads_as_a_thread_raw_state_for_operators_only(
    tenant, conversation, ticket_id
) -> None:
    url = reverse("admin:conversations_conversation_change", args=[conversation.pk])
    agent_page = client_for(make_agent(tenant, "alice")).get(url).content.decode()
    assert desk_url(ticket_id) in agent_page
    assert "inbox-thread" in agent_page
    assert "select_item" not in agent_page.split("inbox-side")[0]  # no state dump
    assert "Raw engine state" not in agent_page
    root = get_user_model().objects.create_superuser("root", "r@example.com", "x-Pass-1234")
    assert "Raw engine state" in client_for(root).get(url).content.decode()


def test_stranger_cannot_open_the_conversation_page(tenant, stranger, ticket_id) -> None:
    conversation = make_conversation(tenant)
    url = reverse("admin:conversations_conversation_change", args=[conversation.pk])
    client = client_for(make_agent(stranger, "eve"))
    assert client.get(url).status_code in (302, 404)
    with tenant_context(tenant.id):
        assert TicketEvent.objects.filter(ticket_id=ticket_id).count() == 1


def test_live_version_moves_when_the_customers_payment_is_paid(
    tenant, conversation, ticket_id
) -> None:
    order = make_order(tenant, conversation, "KN-7790", delivered_days_ago=None)
    with tenant_context(tenant.id) as tid:
        payment = PaymentRequest.objects.create(
            tenant_id=tid, order=order, customer_id=conversation.customer_id,
            method="mpesa_stk", idempotency_key="k-2", amount=Decimal("4500"),
        )  # fmt: skip
    client = client_for(make_agent(tenant, "alice"))
    url = f"{LIVE}?conversation={conversation.pk}"
    before = client.get(url)["ETag"]
    with tenant_context(tenant.id):
        PaymentRequest.objects.filter(pk=payment.pk).update(
            status="paid", updated_at=timezone.now()
        )
    assert client.get(url, headers={"If-None-Match": before}).status_code == 200


def test_desk_shows_a_message_the_webhook_stored_before_any_worker_took_it(
    tenant, conversation, ticket_id
) -> None:
    client = client_for(make_agent(tenant, "alice"))
    url = f"{LIVE}?conversation={conversation.pk}"
    before = client.get(url)["ETag"]
    with tenant_context(tenant.id) as tid:
        InboundMessage.objects.create(
            tenant_id=tid, sender_id=conversation.sender_id, conversation=None,
            message_sid="SM" + "5" * 32, from_e164=conversation.customer.phone_e164,
            kind="text", body="Niko hapa bado", request_id="r-5", received_at=timezone.now(),
        )  # fmt: skip
    assert client.get(url, headers={"If-None-Match": before}).status_code == 200
    assert "Niko hapa bado" in client.get(desk_url(ticket_id)).content.decode()
