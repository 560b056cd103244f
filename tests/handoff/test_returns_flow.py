"""A return/refund request records a verdict and opens an idempotent ticket."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.handoff.models import HandoffTicket, TicketEvent
from tulia.returns.eligibility import Action
from tulia.returns.models import ReturnPolicy, ReturnRequest
from tulia.returns.service import ReturnAsk, request_return

from .conftest import make_conversation, make_order

pytestmark = pytest.mark.django_db


def _ask(reference: str, action: Action = Action.RETURN, reason: str = "too small") -> ReturnAsk:
    return ReturnAsk(order_reference=reference, action=action, reason_text=reason, request_id="r")


def test_eligible_return_opens_a_ticket_carrying_the_verdict(tenant, conversation) -> None:
    make_order(tenant, conversation, "KX-1001", delivered_days_ago=5)
    outcome = request_return(tenant.id, conversation.pk, _ask("KX-1001"))
    assert (outcome.verdict["reason"], outcome.verdict["eligible"]) == ("approved", True)
    assert outcome.verdict["days_since_delivery"] == 5
    assert outcome.ticket_id is not None
    with tenant_context(tenant.id):
        ticket = HandoffTicket.objects.get(pk=outcome.ticket_id)
    assert ticket.category == "return"
    assert ticket.context["extra"]["return_request"]["verdict"] == outcome.verdict
    assert "refund" not in outcome.message.lower()
    assert "a person will confirm" in outcome.message


def test_same_order_and_action_gives_the_same_request_and_ticket(tenant, conversation) -> None:
    make_order(tenant, conversation, "KX-1002")
    first = request_return(tenant.id, conversation.pk, _ask("KX-1002"))
    again = request_return(tenant.id, conversation.pk, _ask("KX-1002", reason="still small"))
    assert (again.return_request_id, again.ticket_id, again.created) == (
        first.return_request_id,
        first.ticket_id,
        False,
    )
    with tenant_context(tenant.id):
        assert ReturnRequest.objects.count() == 1


def test_refund_on_the_same_conversation_joins_its_open_ticket(tenant, conversation) -> None:
    make_order(tenant, conversation, "KX-1003")
    ret = request_return(tenant.id, conversation.pk, _ask("KX-1003"))
    refund = request_return(tenant.id, conversation.pk, _ask("KX-1003", Action.REFUND))
    assert refund.return_request_id != ret.return_request_id
    assert refund.ticket_id == ret.ticket_id
    with tenant_context(tenant.id):
        notes = TicketEvent.objects.filter(ticket_id=ret.ticket_id, kind="note")
        assert "refund" in notes.get().body


def test_expired_by_tenant_policy(tenant, conversation) -> None:
    with tenant_context(tenant.id) as tid:
        ReturnPolicy.objects.create(tenant_id=tid, return_days=10)
    make_order(tenant, conversation, "KX-1004", delivered_days_ago=11)
    outcome = request_return(tenant.id, conversation.pk, _ask("KX-1004"))
    assert (outcome.verdict["reason"], outcome.verdict["window_days"]) == ("time_expired", 10)
    assert outcome.ticket_id is not None


def test_not_delivered_and_swahili_damage(tenant, conversation) -> None:
    make_order(tenant, conversation, "KX-1005", delivered_days_ago=None)
    make_order(tenant, conversation, "KX-1006")
    assert request_return(tenant.id, conversation.pk, _ask("KX-1005")).verdict["reason"] == (
        "not_delivered"
    )
    damaged = request_return(tenant.id, conversation.pk, _ask("KX-1006", reason="Imevunjika"))
    assert (damaged.verdict["reason"], damaged.verdict["manual_review"]) == ("damaged_manual", True)


def test_final_sale_item_from_the_catalog_is_excluded(tenant, conversation) -> None:
    make_order(tenant, conversation, "KX-1007", item_attributes={"final_sale": True})
    assert request_return(tenant.id, conversation.pk, _ask("KX-1007")).verdict["reason"] == (
        "item_excluded"
    )


def test_another_customers_order_is_not_found(tenant, conversation) -> None:
    other = make_conversation(tenant)
    make_order(tenant, other, "KX-1008")
    with pytest.raises(NotFound):
        request_return(tenant.id, conversation.pk, _ask("KX-1008"))


def test_stranger_tenant_cannot_request_on_this_tenants_order(tenant, stranger, conversation):
    make_order(tenant, conversation, "KX-1009")
    with pytest.raises(NotFound):
        request_return(stranger.id, conversation.pk, _ask("KX-1009"))
    with tenant_context(tenant.id):
        assert ReturnRequest.objects.count() == 0


def test_the_reply_and_the_ticket_speak_the_language_of_the_asking_message(
    tenant, conversation
) -> None:
    make_order(tenant, conversation, "KX-1004", delivered_days_ago=2)
    ask = ReturnAsk(order_reference="KX-1004", action=Action.RETURN, request_id="r", language="sw")
    outcome = request_return(tenant.id, conversation.pk, ask)
    assert "mtu atathibitisha" in outcome.message
    english = request_return(tenant.id, conversation.pk, _ask("KX-1004"))
    assert "a person will confirm" in english.message  # same request, asked in English
