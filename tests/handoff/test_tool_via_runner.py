"""handoff_create_ticket through the shared tool runner, once it is registered."""

from __future__ import annotations

import pytest

from tenants.context import tenant_context
from tools.registry import TOOL_MODULES
from tools.runner import call_tool
from tulia.handoff.models import HandoffTicket

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        "handoff_create_ticket" not in TOOL_MODULES,
        reason="tools/registry.py does not list handoff_create_ticket yet",
    ),
]


def _payload(tenant_id, conversation_id: int, **extra: object) -> dict[str, object]:
    return {
        "tenant_id": str(tenant_id),
        "request_id": "req-1",
        "conversation_id": conversation_id,
        "reason": "payment went through twice",
        "category": "payment_dispute",
        **extra,
    }


def test_runner_opens_one_ticket_and_reports_it(tenant, conversation) -> None:
    first = call_tool("handoff_create_ticket", _payload(tenant.id, conversation.pk))
    again = call_tool("handoff_create_ticket", _payload(tenant.id, conversation.pk))
    assert first.output is not None, first.error
    assert again.output is not None
    assert first.output.ticket_id == again.output.ticket_id
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.get().priority == "high"


def test_unknown_category_is_refused_as_invalid_input(tenant, conversation) -> None:
    result = call_tool(
        "handoff_create_ticket", _payload(tenant.id, conversation.pk, category="bored")
    )
    assert result.error is not None
    assert (result.ok, result.error.code) == (False, "invalid_input")


def test_stranger_tenant_gets_not_found_and_no_ticket(tenant, stranger, conversation) -> None:
    result = call_tool("handoff_create_ticket", _payload(stranger.id, conversation.pk))
    assert result.error is not None
    assert (result.ok, result.error.code) == (False, "not_found")
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.count() == 0
