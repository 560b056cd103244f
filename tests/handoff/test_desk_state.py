"""What the assignment policy reads of the desk: each agent's load, the previous agent,
the queue, counted for this shop only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tenants.context import tenant_context
from tulia.handoff.desk import claim
from tulia.handoff.desk_state import snapshot
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category

from .conftest import make_agent, make_conversation

pytestmark = pytest.mark.django_db

ASK = HandoffRequest(reason="customer asked for a person", category=Category.HUMAN_REQUEST)
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _ticket(tenant) -> int:
    ticket_id = escalate(tenant.id, make_conversation(tenant).pk, ASK).ticket_id
    assert ticket_id is not None
    return ticket_id


def test_loads_previous_agent_and_queue_count_this_shop_only(tenant, stranger) -> None:
    alice, bob = make_agent(tenant, "alice"), make_agent(tenant, "bob", capacity=2)
    first = _ticket(tenant)
    claim(tenant.id, first, alice.pk)
    claim(tenant.id, _ticket(tenant), alice.pk)
    _ticket(tenant)  # waits in the queue
    # Another shop's busy desk changes nothing here.
    carol = make_agent(stranger, "carol")
    claim(stranger.id, _ticket(stranger), carol.pk)
    _ticket(stranger)

    with tenant_context(tenant.id):
        from tulia.handoff.models import HandoffTicket

        returning = HandoffTicket.objects.get(pk=first).conversation
        snap = snapshot(tenant, returning.pk, returning.customer_id, NOW)
        fresh = make_conversation(tenant)
        new_customer = snapshot(tenant, fresh.pk, fresh.customer_id, NOW)

    loads = {a.user_id: (a.active_chats, a.capacity) for a in snap.agents}
    assert loads[alice.pk][0] == 2
    assert loads[bob.pk] == (0, 2)
    assert set(loads) == {alice.pk, bob.pk}
    assert snap.waiting_ahead == 1
    assert snap.previous_agent_id == alice.pk
    assert new_customer.previous_agent_id is None  # a new customer has no previous agent
