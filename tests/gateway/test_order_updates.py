"""A lifecycle step reaches the customer through the outbound gate and the Twilio
emulator: free-form in their language inside the 24-hour window, the approved
"order shipped" template with the tracking note outside it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tenants.models import Customer
from tulia.commerce.lifecycle import move_order
from tulia.commerce.models import Order
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp import purposes

from .window_support import (
    conversation_of,
    customer_writes,
    eager_tasks,
    hours_pass,
    install_and_approve,
    newest,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _packed_order(tenant) -> Order:
    conversation = conversation_of(tenant)
    with tenant_context(tenant.id) as tid:
        return Order.objects.create(
            tenant_id=tid, customer=conversation.customer, reference="KIC-2042", status="packed",
            subtotal=Decimal(2500), total=Decimal(2500), paid_at=timezone.now(),
        )  # fmt: skip


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Your order KIC-2042 is on the way. Delivery details: rider Juma"),
     ("sw", "Oda yako KIC-2042 iko njiani. Maelezo ya usafirishaji: rider Juma")],
)  # fmt: skip
def test_shipped_inside_the_window_is_free_form_in_the_customers_language(
    tenant, twilio, language, words
) -> None:
    conversation = customer_writes(tenant, twilio)
    with tenant_context(tenant.id):
        Customer.objects.filter(pk=conversation.customer_id).update(language_preference=language)
    order = _packed_order(tenant)
    with eager_tasks():
        move_order(tenant.id, order.pk, "shipped", actor="staff:owner", note="rider Juma")
    sent = twilio.sent[-1]
    assert sent.body == words
    assert not sent.content_sid
    assert newest(tenant).purpose == purposes.ORDER_SHIPPED


def test_shipped_25_hours_later_goes_as_the_template_with_the_tracking_note(tenant, twilio) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    install_and_approve(tenant, twilio, purposes.ORDER_SHIPPED)
    order = _packed_order(tenant)
    with eager_tasks():
        move_order(tenant.id, order.pk, "shipped", actor="staff:owner", note="rider Juma")
    sent = twilio.sent[-1]
    assert sent.content_sid
    assert sent.content_variables == {"1": "KIC-2042", "2": "rider Juma"}
    assert newest(tenant).status == OutboundMessage.Status.QUEUED


def test_shipped_25_hours_later_without_a_template_is_recorded_not_sent(tenant, twilio) -> None:
    customer_writes(tenant, twilio)
    hours_pass(tenant, twilio, 25)
    order = _packed_order(tenant)
    before = len(twilio.sent)
    with eager_tasks():
        move_order(tenant.id, order.pk, "shipped", actor="staff:owner", note="rider Juma")
    assert len(twilio.sent) == before
    row = newest(tenant)
    assert (row.status, row.purpose) == (OutboundMessage.Status.NOT_SENT, "order_shipped")
    assert "rider Juma" in row.body  # what the customer missed, for the shop to see
