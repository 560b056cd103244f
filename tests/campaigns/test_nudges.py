"""Automated nudges: switched on per shop, run by the beat, within consent, window,
quiet hours and the per-customer cap; never the same nudge twice."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import time, timedelta

import pytest
from django.utils import timezone

from tenants.context import tenant_context
from tests.commerce import factories as f
from tulia.campaigns import nudges
from tulia.campaigns.models import MessagingSettings, Nudge, StockRequest
from tulia.campaigns.tasks import nudge_all
from tulia.celery import app as celery_app
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import CatalogItem, Order
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.conversations.services import latest_conversation

from .conftest import add_customers, approved_template

pytestmark = pytest.mark.django_db
_items = itertools.count(1)


@pytest.fixture
def inline_tasks() -> Iterator[None]:
    celery_app.conf["task_always_eager"] = True
    try:
        yield
    finally:
        celery_app.conf["task_always_eager"] = False


def _switch(tenant, **fields) -> None:
    with tenant_context(tenant.id):
        MessagingSettings.objects.update(**fields)


def _unpaid_order(tenant, customer, hours_ago: float) -> Order:
    item = f.item(tenant, f"Runner {next(_items)}", 4500)
    order = create_order(tenant.id, customer.pk, [LineRequest(item.pk, 1)])
    with tenant_context(tenant.id):
        Order.objects.filter(pk=order.pk).update(
            status="pending_payment", created_at=timezone.now() - timedelta(hours=hours_ago)
        )
    return order


def _outbound(tenant) -> list[OutboundMessage]:
    with tenant_context(tenant.id):
        return list(OutboundMessage.objects.order_by("id"))


@pytest.mark.usefixtures("inline_tasks")
def test_abandoned_cart_nudge_goes_once_as_the_approved_template(tenant, twilio) -> None:
    template = approved_template(
        tenant, twilio, name="cart_reminder", purpose="abandoned_cart",
        body="Your order {{1}} of {{2}} is waiting. Reply STOP to opt out.",
        examples={"1": "KIC-1", "2": "KES 4,500"},
    )  # fmt: skip
    (buyer,) = add_customers(tenant, 1)
    order = _unpaid_order(tenant, buyer, hours_ago=5)
    _unpaid_order(tenant, add_customers(tenant, 1, start=5)[0], hours_ago=1)  # too fresh
    nudge_all.delay()  # nothing switched on yet
    assert _outbound(tenant) == []

    _switch(tenant, abandoned_cart=True, abandoned_cart_hours=4)
    nudge_all.delay()
    nudge_all.delay()  # the next beat: the same cart is not nudged again
    (sent,) = _outbound(tenant)
    assert sent.content_sid == template.content_sid
    assert sent.content_variables == {"1": order.reference, "2": "KES 4,500"}
    assert sent.status == OutboundMessage.Status.PENDING  # delivery follows the commit
    with tenant_context(tenant.id):
        assert Nudge.objects.get().subject == order.reference


def test_nudge_respects_consent_quiet_hours_and_the_cap(tenant, twilio) -> None:
    approved_template(
        tenant, twilio, name="cart_reminder", purpose="abandoned_cart",
        body="Your order {{1}} of {{2}} is waiting. Reply STOP to opt out.",
        examples={"1": "KIC-1", "2": "KES 4,500"},
    )  # fmt: skip
    _switch(tenant, abandoned_cart=True, abandoned_cart_hours=1, nudges_per_customer=1)
    (never_asked,) = add_customers(tenant, 1, opted_in=False)
    _unpaid_order(tenant, never_asked, hours_ago=3)
    (fan,) = add_customers(tenant, 1, start=7)
    _unpaid_order(tenant, fan, hours_ago=3)
    _unpaid_order(tenant, fan, hours_ago=2)  # a second cart: over the cap of one

    _switch(tenant, quiet_from=time(0, 0), quiet_until=time(23, 59))
    assert nudges.run_nudges(tenant.id) == 0
    _switch(tenant, quiet_from=time(0, 0), quiet_until=time(0, 0))
    assert nudges.run_nudges(tenant.id) == 1
    with tenant_context(tenant.id):
        outcomes = dict(Nudge.objects.values_list("customer_id", "outcome"))
    assert outcomes[fan.pk] == "template queued"
    assert "not opted in" in outcomes[never_asked.pk]
    assert nudges.run_nudges(tenant.id) == 0  # capped; the refused one is not retried
    assert len(_outbound(tenant)) == 1


def test_back_in_stock_inside_the_window_is_free_text_in_their_language(tenant, twilio) -> None:
    (asker,) = add_customers(tenant, 1, language_preference="sw")
    item = f.item(tenant, "Air Runner", 4500, stock=0)
    assert nudges.record_stock_request(tenant.id, asker.pk, item.pk)
    assert not nudges.record_stock_request(tenant.id, asker.pk, item.pk)  # one open ask
    conversation = latest_conversation(tenant.id, asker.pk)
    with tenant_context(tenant.id):
        Conversation.objects.filter(pk=conversation.pk).update(last_inbound_at=timezone.now())
    _switch(tenant, back_in_stock=True)
    assert nudges.run_nudges(tenant.id) == 0  # still sold out
    with tenant_context(tenant.id):
        CatalogItem.objects.filter(pk=item.pk).update(stock=3, in_stock=True)
    assert nudges.run_nudges(tenant.id) == 1
    (sent,) = _outbound(tenant)
    assert sent.content_sid == ""
    assert (
        sent.body == "Habari njema: *Air Runner* imerudi dukani. Jibu uagize kabla haijaisha tena."
    )
    with tenant_context(tenant.id):
        assert StockRequest.objects.get().notified_at is not None
    assert nudges.run_nudges(tenant.id) == 0


def test_nudges_are_on_the_beat_schedule() -> None:
    schedule = celery_app.conf.beat_schedule
    assert schedule["campaigns-nudges"]["task"] == "campaigns.nudges"
    assert schedule["campaigns-due"]["task"] == "campaigns.due"
