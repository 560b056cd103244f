"""Property 4 over whole conversations: the stored state is explicit, typed and honest.

After every turn the state the gateway stores must hold every field of seed 002's
PersistedState with a value of its declared type, carry this turn's identity, say
"unknown" (None / "unknown" / empty) wherever no tool has told it otherwise, and be
plain JSON: a state read back from the JSONField continues the conversation exactly
like the in-memory one.
"""

from __future__ import annotations

import itertools
import json
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from journeys.handler import handle_turn
from journeys.state import PersistedState
from payments.models import PaymentRequest
from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tests.flows.chat import Chat, start_chat
from tests.flows.profile import PROPERTY
from tulia.commerce.models import Order
from tulia.handoff.models import HandoffTicket

pytestmark = pytest.mark.django_db
FIELDS = get_type_hints(PersistedState)  # scratch is never stored
_phones = itertools.count(1)

LINES = [
    "I want sneakers", "nataka viatu", "1", "2", "41", "42", "yes", "ndio", "no", "pay",
    "mpesa", "any offers?", "use code SAVE10", "none of these", "see all",
    "did my payment go through?", "where is my order?", "what is your return policy?",
    "reply in swahili", "STOP", "START", "hi", "niaje", "click here to win",
    "I want to talk to a human", "qwzx plmk", "2 pairs", "",
]  # fmt: skip
lines = st.lists(st.one_of(st.sampled_from(LINES), st.text(max_size=20)), min_size=1, max_size=3)


def conforms(value: Any, hint: Any) -> bool:  # noqa: PLR0911 - one return per kind of type
    """Whether a JSON value fits a type annotation of the state (PEP 484: int fits float)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return True
    if origin is Literal:
        return value in args
    if origin in (Union, types.UnionType):
        return any(conforms(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            isinstance(k, str) and conforms(v, args[1]) for k, v in value.items()
        )
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if is_typeddict(hint):  # the stored values (cart lines, totals...): their keys, typed
        return _fits_typeddict(value, hint)
    return isinstance(value, hint)


def _fits_typeddict(value: Any, hint: Any) -> bool:
    fields = get_type_hints(hint)
    return (
        isinstance(value, dict)
        and hint.__required_keys__ <= value.keys() <= fields.keys()
        and all(conforms(v, fields[k]) for k, v in value.items())
    )


def new_chat(tenant: Tenant) -> Chat:
    return start_chat(tenant, f"0713{next(_phones):06d}")


def send(chat: Chat, line: str) -> str:
    """Chat.send, keeping hold of the turn's request id to check the identity against."""
    turn = chat.turn_input(line)
    output = handle_turn(turn)
    chat.turn_number += 1
    chat.state = output.state if output.state is not None else chat.state
    return turn.request_id


def _records(chat: Chat) -> dict[str, Any]:
    """What the database says this customer has: the only source of the optional facts."""
    with tenant_context(chat.tenant.id) as tid:
        customer = Customer.objects.get(tenant_id=tid, pk=chat.customer.pk)
        mine = {"tenant_id": tid, "customer_id": customer.pk}
        return {
            "customer": customer,
            "orders": {
                str(pk): t for pk, t in Order.objects.filter(**mine).values_list("pk", "total")
            },
            "payments": {
                str(pk): status
                for pk, status in PaymentRequest.objects.filter(**mine).values_list("pk", "status")
            },
            "tickets": {
                str(pk)
                for pk in HandoffTicket.objects.filter(
                    tenant_id=tid, conversation_id=chat.conversation_id
                ).values_list("pk", flat=True)
            },
        }


def assert_explicit(chat: Chat, request_id: str) -> None:
    state = chat.state
    missing = sorted(set(FIELDS) - set(state))
    assert not missing, f"fields missing from the stored state: {missing}"
    wrong = {k: state[k] for k, hint in FIELDS.items() if not conforms(state[k], hint)}
    assert not wrong, f"fields of the wrong type: {wrong}"
    assert (state["tenant_id"], state["conversation_id"], state["request_id"]) == (
        str(chat.tenant.id),
        str(chat.conversation_id),
        request_id,
    )
    found = _records(chat)
    customer = found["customer"]
    assert state["customer_id"] == str(customer.pk)
    assert state["phone_e164"] == customer.phone_e164
    assert state["customer_language_pref"] == (customer.language_preference or None)
    assert state["marketing_opt_in"] == customer.marketing_opt_in
    assert customer.display_name == "", "nobody told the bot this customer's name"
    assert (state["tenant_name"], state["default_language"]) == (
        chat.tenant.name,
        chat.tenant.default_language,
    )
    _assert_order_facts_come_from_records(state, found)


def _assert_order_facts_come_from_records(state: dict[str, Any], found: dict[str, Any]) -> None:
    order_id = state["order_id"]
    assert order_id is None or order_id in found["orders"], f"unknown order {order_id}"
    if order_id is None:
        assert not state["order_totals"], "totals without an order"
    else:
        assert state["order_totals"]["total"] == str(found["orders"][order_id])
    payment = state["payment_request_id"]
    assert payment is None or payment in found["payments"], f"unknown payment {payment}"
    if not found["payments"]:
        assert state["payment_status"] in (None, "unknown"), "a payment status with no payment"
    ticket = state["escalation"]["ticket_id"]
    assert ticket is None or ticket in found["tickets"], f"unknown ticket {ticket}"


@PROPERTY
@given(lines=lines)
def test_every_stored_state_is_complete_typed_and_unknown_where_unknown(
    shop: Tenant, save10_offer: Tenant, lines: list[str]
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 4: Explicit State Management"""
    chat = new_chat(shop)
    for line in lines:
        assert_explicit(chat, send(chat, line))


@PROPERTY
@given(lines=lines, last=st.sampled_from(LINES))
def test_a_state_read_back_from_json_continues_like_the_one_in_memory(
    shop: Tenant, save10_offer: Tenant, lines: list[str], last: str
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 4: Explicit State Management"""
    chat = new_chat(shop)
    for line in lines:
        chat.send(line)
    stored = json.loads(json.dumps(chat.state))
    assert stored == chat.state
    turn = chat.turn_input(last)
    from_json = handle_turn(turn.model_copy(update={"state": stored}))
    from_memory = handle_turn(turn)  # the gateway's retry of the very same turn
    assert from_json.replies == from_memory.replies
