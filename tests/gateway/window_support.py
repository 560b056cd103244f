"""A customer who wrote through the real signed webhook, and the clock moved past 24 hours.

The chat goes through `ChatSession` (signed webhook, turn and delivery run inline) to
the Twilio emulator with WhatsApp's window enforced. "Twenty-five hours later" moves
the stored times of the customer's message back (ours and the emulator's): no sleeps.
"""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from django.utils import timezone

from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tenants.services import get_or_create_customer
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.conversations.services import open_conversation
from tulia.whatsapp import templates
from tulia.whatsapp.chat import ChatSession, eager_tasks
from tulia.whatsapp.emulator import TwilioEmulator
from tulia.whatsapp.models import MessageTemplate

OUR_NUMBER = "+254711000001"
CUSTOMER = "+254712345678"


def customer_writes(tenant: Tenant, twilio: TwilioEmulator, text: str = "Hi Kicks") -> Conversation:
    twilio.strict_window = True
    session = ChatSession.open(tenant.slug, CUSTOMER)
    twilio.customer_wrote(OUR_NUMBER, CUSTOMER)
    assert session.send(text), "the in-window reply went out"
    return conversation_of(tenant)


def conversation_of(tenant: Tenant) -> Conversation:
    with tenant_context(tenant.id):
        return Conversation.objects.select_related("customer").get()


def hours_pass(tenant: Tenant, twilio: TwilioEmulator, hours: float = 25) -> None:
    then = timezone.now() - timedelta(hours=hours)
    with tenant_context(tenant.id):
        Conversation.objects.update(last_inbound_at=then)
        InboundMessage.objects.update(received_at=then)
    twilio.customer_wrote(OUR_NUMBER, CUSTOMER, at=then)


def install_and_approve(tenant: Tenant, twilio: TwilioEmulator, *purposes: str) -> None:
    """Install the starter set through the emulator; Meta approves only `purposes`."""
    templates.install_starter_templates(tenant.id)
    with tenant_context(tenant.id):
        rows = list(MessageTemplate.objects.filter(purpose__in=purposes))
    for row in rows:
        twilio.approve(row.content_sid)
    templates.sync_open(tenant.id)


def newest(tenant: Tenant) -> OutboundMessage:
    with tenant_context(tenant.id):
        return OutboundMessage.objects.latest("id")


__all__ = ["eager_tasks"]


def customer_who_just_wrote(tenant_id: UUID | str, phone: str = CUSTOMER) -> Customer:
    """A customer whose 24-hour window is open (they wrote a moment ago)."""
    customer, _ = get_or_create_customer(tenant_id, phone)
    sender = active_senders(tenant_id)[0]
    conversation = open_conversation(tenant_id, customer.pk, sender.pk)
    with tenant_context(tenant_id):
        Conversation.objects.filter(pk=conversation.pk).update(last_inbound_at=timezone.now())
    return customer
