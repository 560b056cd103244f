"""Two agents claim the same ticket at the same moment: exactly one wins."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from tenants.context import tenant_context
from tulia.handoff.desk import claim
from tulia.handoff.errors import AlreadyClaimed
from tulia.handoff.escalation import HandoffRequest, escalate
from tulia.handoff.models import Category, HandoffTicket

from .conftest import make_agent, make_conversation, status_of

pytestmark = pytest.mark.django_db(transaction=True)


def _race(tenant_id, ticket_id: int, agent_ids: list[int]) -> list[object]:
    barrier = threading.Barrier(len(agent_ids))
    results: list[object] = [None] * len(agent_ids)

    def attempt(index: int, agent_id: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = claim(tenant_id, ticket_id, agent_id).assigned_to_id
        except AlreadyClaimed as exc:
            results[index] = exc
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=attempt, args=(i, a)) for i, a in enumerate(agent_ids)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_two_agents_claiming_at_once_one_wins(tenant) -> None:
    alice, bob = make_agent(tenant, "alice"), make_agent(tenant, "bob")
    conversation = make_conversation(tenant)
    ticket_id = escalate(
        tenant.id,
        conversation.pk,
        HandoffRequest(reason="wants a person", category=Category.KEYWORD),
    ).ticket_id
    assert ticket_id is not None

    results = _race(tenant.id, ticket_id, [alice.pk, bob.pk])

    winners = [r for r in results if isinstance(r, int)]
    losers = [r for r in results if isinstance(r, AlreadyClaimed)]
    assert len(winners) == 1
    assert len(losers) == 1
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.get(pk=ticket_id).assigned_to_id == winners[0]
    assert status_of(tenant, conversation.pk) == "agent_active"


def test_two_escalations_at_once_open_one_ticket(tenant) -> None:
    make_agent(tenant, "alice")
    conversation = make_conversation(tenant)
    barrier = threading.Barrier(2)
    ids: list[int | None] = []

    def attempt(category: Category) -> None:
        try:
            barrier.wait(timeout=10)
            ids.append(
                escalate(tenant.id, conversation.pk, HandoffRequest("x", category)).ticket_id
            )
        finally:
            connection.close()

    threads = [
        threading.Thread(target=attempt, args=(c,))
        for c in (Category.KEYWORD, Category.TOOL_ERRORS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(ids) == 2
    assert ids[0] == ids[1]
    assert ids[0] is not None
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.count() == 1
