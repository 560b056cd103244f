"""Clarification loops (SPEC §5.5): a person after three clarifying questions whose
replies the bot still could not place, never for nodding along ("ok", "sawa", "asante")."""

from __future__ import annotations

import pytest

from journeys.context import RunContext
from journeys.flows.escalation import detect_escalation
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.state import new_state
from tenants.models import Tenant
from tests.flows.chat import start_chat
from tests.flows.effects import observed

CTX = RunContext(tenant_id="t", customer_id="c", conversation_id="conv", request_id="r")
NODS = ["ok", "sawa", "poa", "asante", "thanks", "okay", "sawa sawa", "noted"]


def _detect(text: str, asked: int) -> FlowState:
    """A business turn the classifier could not place, after `asked` clarifying questions."""
    state = new_state(tenant_id="t", conversation_id="conv", request_id="r")
    state.update(FlowState(inbound_text=text, intent="unknown", intent_confidence=0.3))
    state["governance"]["action"] = "proceed"
    state["support"]["clarify_loops"] = asked
    return detect_escalation(state, CTX, EngineDeps())


@pytest.mark.parametrize("nod", NODS)
def test_a_nod_after_an_answer_starts_no_loop(nod: str) -> None:
    assert _detect(nod, asked=0)["support"]["clarify_loops"] == 0


@pytest.mark.parametrize("nod", NODS)
def test_nodding_after_three_questions_does_not_escalate(nod: str) -> None:
    update = _detect(nod, asked=3)
    assert "category" not in update["escalation"]
    assert update["support"]["clarify_loops"] == 3  # nor does it forgive the confusion before it


def test_the_first_message_not_understood_only_asks() -> None:
    assert _detect("qwzx plmk", asked=0)["support"]["clarify_loops"] == 1
    assert "category" not in _detect("qwzx plmk", asked=2)["escalation"]


def test_three_clarifying_questions_still_not_understood_escalate() -> None:
    update = _detect("qwzx plmk", asked=3)
    assert update["escalation"]["category"] == "missing_info"
    assert update["escalation"]["reason"] == "3 clarification loops without understanding"


@pytest.mark.django_db
def test_acknowledging_an_answer_opens_no_ticket(shop: Tenant) -> None:
    chat = start_chat(shop)
    chat.send("I want sneakers")
    for nod in ("ok", "sawa", "okay", "sawa sawa", "ok"):
        chat.send(nod)
    assert chat.state["escalation"]["category"] is None
    assert observed(chat)["tickets"] == 0
