"""Every outbound path 25 hours after the customer's last message.

Each path either sends its approved utility template through the emulator (ContentSid
plus the facts as ContentVariables) or, with no approved template, records the
message as not sent with the reason, which the shop sees in admin.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from payments.models import PaymentRequest
from payments.notify import send_outcome_once
from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.commerce.models import Order
from tulia.conversations.models import OutboundMessage
from tulia.handoff import desk
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category
from tulia.whatsapp import purposes
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.outbound import queue_reply, send_to_customer

from .window_support import (
    CUSTOMER,
    OUR_NUMBER,
    conversation_of,
    customer_writes,
    eager_tasks,
    hours_pass,
    install_and_approve,
    newest,
)

pytestmark = pytest.mark.django_db(transaction=True)
Status = OutboundMessage.Status


def _claimed_ticket(tenant) -> tuple[int, int]:
    agent = add_staff_member(
        tenant.id,
        username="wanjiru_k",
        password="x-Pass-1234",
        role="agent",
        display_name="Wanjiru",
    )
    conversation = conversation_of(tenant)
    request = HandoffRequest("asked for a person", Category.HUMAN_REQUEST)
    ticket_id = escalate(tenant.id, conversation.pk, request).ticket_id
    assert ticket_id is not None
    desk.claim(tenant.id, ticket_id, agent.pk)
    return ticket_id, agent.pk


def _paid(tenant) -> PaymentRequest:
    conversation = conversation_of(tenant)
    with tenant_context(tenant.id) as tid:
        order = Order.objects.create(
            tenant_id=tid, customer=conversation.customer, reference="KIC-1042",
            subtotal=Decimal(2500), total=Decimal(2500),
        )  # fmt: skip
        return PaymentRequest.objects.create(
            tenant_id=tid, order=order, customer=conversation.customer, method="mpesa_stk",
            idempotency_key="pay-1", amount=Decimal(2500), status="paid", receipt="SGH2X9ABC",
        )  # fmt: skip


def _admin_shows_not_sent(client, tenant, reason: str) -> None:
    add_staff_member(tenant.id, username="owner-k", password="x-Pass-1234", role="owner")
    client.login(username="owner-k", password="x-Pass-1234")
    page = client.get(reverse("admin:whatsapp_notsentmessage_changelist"))
    assert page.status_code == 200
    assert reason in page.content.decode()


# --- the desk: an agent's late reply ------------------------------------------------
def test_agent_reply_25_hours_later_goes_as_the_agent_reply_template(tenant, twilio) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purposes.AGENT_REPLY)
    ticket_id, agent_id = _claimed_ticket(tenant)
    with eager_tasks():
        desk.reply(tenant.id, ticket_id, agent_id, "Size 42 is back in stock", "desk-1")
    sent = twilio.sent[-1]
    assert sent.content_sid
    # The display name the customer knows, never the login (wanjiru_k).
    assert sent.content_variables == {"1": "Wanjiru", "2": "Size 42 is back in stock"}
    assert "Wanjiru from our team has replied to you: Size 42 is back in stock" in sent.body
    row = newest(tenant)
    assert (row.status, row.purpose, row.content_sid) == (
        Status.QUEUED,
        "agent_reply_waiting",
        sent.content_sid,
    )


def test_agent_reply_25_hours_later_without_template_is_recorded_not_sent(
    tenant, twilio, client
) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio)  # submitted, none approved yet
    ticket_id, agent_id = _claimed_ticket(tenant)
    before = len(twilio.sent)
    with eager_tasks():
        desk.reply(tenant.id, ticket_id, agent_id, "Size 42 is back in stock", "desk-2")
    assert len(twilio.sent) == before
    row = newest(tenant)
    assert row.status == Status.NOT_SENT
    assert row.error_code == 63016
    assert "no approved 'agent_reply_waiting' template" in row.error_message
    _admin_shows_not_sent(client, tenant, "no approved &#x27;agent_reply_waiting&#x27; template")


# --- payments: an outcome told a day later ------------------------------------------
def test_payment_received_25_hours_later_goes_as_the_payment_template(tenant, twilio) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purposes.PAYMENT_RECEIVED)
    payment = _paid(tenant)
    with eager_tasks():
        assert send_outcome_once(tenant.id, payment.pk)
    sent = twilio.sent[-1]
    assert sent.content_variables == {"1": "KIC-1042", "2": "2,500", "3": "SGH2X9ABC"}
    assert "KES 2,500 for order KIC-1042, M-Pesa receipt SGH2X9ABC" in sent.body
    assert newest(tenant).status == Status.QUEUED


def test_payment_received_25_hours_later_without_template_is_not_sent(
    tenant, twilio, client
) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    payment = _paid(tenant)
    before = len(twilio.sent)
    with eager_tasks():
        send_outcome_once(tenant.id, payment.pk)
    assert len(twilio.sent) == before
    row = newest(tenant)
    assert (row.status, row.purpose) == (Status.NOT_SENT, "payment_received")
    assert "Payment" in row.body or "KIC-1042" in row.body  # what the customer missed
    _admin_shows_not_sent(client, tenant, "payment_received")


# --- order updates and return decisions (the hook the next issues call) -------------
@pytest.mark.parametrize(
    ("purpose", "facts", "expected"),
    [
        (purposes.ORDER_SHIPPED, {"order": "KIC-7", "details": "rider Juma"},
         "order KIC-7 is on its way"),
        (purposes.RETURN_DECISION, {"order": "KIC-7", "decision": "approved"},
         "return for order KIC-7: approved"),
    ],
)  # fmt: skip
def test_order_and_return_updates_25_hours_later_go_as_templates(
    tenant, twilio, purpose, facts, expected
) -> None:
    conversation = customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purpose)
    with eager_tasks():
        send_to_customer(
            tenant.id, conversation.customer_id, ["free text"], "o-1", purpose=purpose, facts=facts
        )
    sent = twilio.sent[-1]
    assert expected in sent.body
    assert list(sent.content_variables.values()) == list(facts.values())


def test_order_update_25_hours_later_without_template_is_not_sent(tenant, twilio) -> None:
    conversation = customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purposes.ORDER_SHIPPED)  # sw/en shipped only
    facts = {"order": "KIC-7"}
    with eager_tasks():
        send_to_customer(
            tenant.id,
            conversation.customer_id,
            ["Delivered!"],
            "o-2",
            purpose=purposes.ORDER_DELIVERED,
            facts=facts,
        )
    row = newest(tenant)
    assert row.status == Status.NOT_SENT
    assert "no approved 'order_delivered' template in en" in row.error_message


# --- bot replies: no template exists for them ------------------------------------------
def test_bot_reply_25_hours_later_is_recorded_not_sent(tenant, twilio) -> None:
    conversation = customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, *purposes.PURPOSES)
    before = len(twilio.sent)
    with eager_tasks():
        queue_reply(tenant.id, conversation.pk, ["A late answer"], "late-turn")
    assert len(twilio.sent) == before
    row = newest(tenant)
    assert (row.status, row.error_code) == (Status.NOT_SENT, 63016)
    assert "a 'reply' message has no template" in row.error_message


def test_bot_reply_inside_the_window_goes_free_form(tenant, twilio) -> None:
    conversation = customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 23)
    with eager_tasks():
        queue_reply(tenant.id, conversation.pk, ["Still here"], "turn")
    assert twilio.sent[-1].body == "Still here"
    assert not twilio.sent[-1].content_sid


# --- Twilio's own refusals end the same way ------------------------------------------
def test_twilio_63016_for_free_form_is_recorded_not_sent(tenant, twilio) -> None:
    """Our clock says the window is open, WhatsApp's says it closed: Twilio refuses."""
    conversation = customer_writes(tenant, twilio)
    twilio.customer_wrote(OUR_NUMBER, CUSTOMER, at=timezone.now() - timedelta(hours=25))
    with eager_tasks():
        queue_reply(tenant.id, conversation.pk, ["One more thing"], "turn")
    row = newest(tenant)
    assert (row.status, row.error_code) == (Status.NOT_SENT, 63016)
    assert "outside the allowed window" in row.error_message


def test_twilio_63027_for_a_paused_template_is_recorded_not_sent(tenant, twilio) -> None:
    conversation = customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purposes.ORDER_CONFIRMED)
    with tenant_context(tenant.id):
        template = MessageTemplate.objects.get(purpose=purposes.ORDER_CONFIRMED, language="en")
    twilio.pause(template.content_sid)  # Meta paused it; our last sync still says approved
    facts = {"order": "KIC-8"}
    with eager_tasks():
        send_to_customer(
            tenant.id, conversation.customer_id, ["x"], "o", purpose="order_confirmed", facts=facts
        )
    row = newest(tenant)
    assert (row.status, row.error_code) == (Status.NOT_SENT, 63027)
