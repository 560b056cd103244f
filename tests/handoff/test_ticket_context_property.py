"""Property 12: every ticket carries identity, journey, step and a reason."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tests.hypothesis_profiles import examples
from tulia.handoff.models import HandoffTicket
from tulia.handoff.tools.handoff_create_ticket import TOOL, HandoffCreateTicketInput
from tulia.returns.eligibility import Action
from tulia.returns.service import ReturnAsk, request_return

from .conftest import make_agent, make_conversation, make_order

pytestmark = pytest.mark.django_db

CATEGORIES = [
    "human_request", "payment_dispute", "refund", "return", "delivery_complaint",
    "missing_info", "tool_errors", "sensitive", "frustration", "keyword",
]  # fmt: skip
_orders = iter(range(10_000, 99_999))
blank = st.sampled_from([None, ""]) | st.text(min_size=1, max_size=12)
# jsonb holds neither NUL nor lone surrogates, so a stored engine state never does.
stored_text = st.sampled_from([None, ""]) | st.text(
    st.characters(codec="utf-8", blacklist_characters="\x00"),
    min_size=1,
    max_size=12,
)
states = st.fixed_dictionaries(
    {},
    optional={
        "journey": stored_text,
        "step": stored_text,
        "cart": st.lists(st.fixed_dictionaries({"sku": stored_text}), max_size=2),
        "payment_status": stored_text,
    },
)


def _via_tool(tenant, conversation, data: dict[str, Any]) -> int | None:
    payload = HandoffCreateTicketInput(
        tenant_id=tenant.id,
        request_id="prop-12",
        conversation_id=conversation.pk,
        reason=data["reason"],
        category=data["category"],
        journey=data["journey"] or None,
        step=data["step"] or None,
    )
    with tenant_context(tenant.id):
        return TOOL.run(payload).ticket_id


def _via_keyword(tenant, conversation, data: dict[str, Any]) -> int | None:
    """What the engine does on a tenant's trigger word: the tool, category "keyword"."""
    return _via_tool(tenant, conversation, {**data, "category": "keyword"})


def _via_return(tenant, conversation, data: dict[str, Any]) -> int | None:
    reference = f"P-{next(_orders)}"
    make_order(tenant, conversation, reference)
    ask = ReturnAsk(reference, Action.RETURN, reason_text=data["reason"])
    return request_return(tenant.id, conversation.pk, ask).ticket_id


PATHS = {"tool": _via_tool, "keyword": _via_keyword, "return": _via_return}


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(sorted(PATHS)),
    state=states,
    data=st.fixed_dictionaries(
        {
            "reason": st.text(min_size=1, max_size=40).filter(str.strip),
            "category": st.sampled_from(CATEGORIES),
            "journey": blank,
            "step": blank,
        }
    ),
)
def test_every_ticket_carries_identity_journey_step_and_reason(
    tenant, path: str, state: dict[str, Any], data: dict[str, Any]
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 12: Handoff context completeness.

    Whatever opened the ticket (the tool, a keyword trigger, a return request) and
    whatever the engine state knew, the ticket names tenant, customer, journey, step
    and a reason, none of them empty.
    """
    conversation = make_conversation(tenant, state=state)
    ticket_id = PATHS[path](tenant, conversation, data)
    assert ticket_id is not None
    with tenant_context(tenant.id):
        ticket = HandoffTicket.objects.get(pk=ticket_id)
    context = ticket.context
    assert context["tenant_id"] == str(tenant.id)
    assert context["customer_id"] == conversation.customer_id == ticket.customer_id
    for key in ("journey", "step", "reason", "transcript_summary"):
        assert isinstance(context[key], str)
        assert context[key].strip(), key
    assert ticket.reason.strip()


def test_tool_is_idempotent_per_open_conversation(tenant) -> None:
    make_agent(tenant, "alice")
    conversation = make_conversation(tenant)
    data = {"reason": "wants a refund", "category": "refund", "journey": None, "step": None}
    first = _via_tool(tenant, conversation, data)
    assert first is not None
    assert _via_tool(tenant, conversation, {**data, "category": "frustration"}) == first
    with tenant_context(tenant.id):
        assert HandoffTicket.objects.get(pk=first).priority == "high"


def test_tool_refuses_without_a_conversation(tenant) -> None:
    from tools.contract import ToolFailure

    payload = HandoffCreateTicketInput(
        tenant_id=tenant.id, request_id="r", reason="x", category="keyword"
    )
    with tenant_context(tenant.id), pytest.raises(ToolFailure):
        TOOL.run(payload)
