"""sales_narrow_query's LLM side, against the OpenAI-compatible emulator (real client)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from journeys import handler
from journeys.llm_emulator import LLMEmulator, Reply, ServerError
from tenants.models import Tenant
from tests.flows.chat import start_chat

pytestmark = pytest.mark.django_db
VAGUE = "I want to buy"


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMEmulator]:
    """The handler's LLM settings pointed at the emulator (read once per process)."""
    with LLMEmulator().running() as emulator:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", emulator.base_url)
        monkeypatch.setenv("TULIA_LLM_MODE", "cascade")  # whatever the shell says
        handler._deps.cache_clear()
        yield emulator
    handler._deps.cache_clear()


def _narrowing_reply(**payload: object) -> Reply:
    return Reply({"action": "search", "min_price": None, "confidence": 0.9, **payload})


def test_the_rules_find_nothing_and_the_model_names_the_product(
    shop: Tenant, llm: LLMEmulator
) -> None:
    llm.default = lambda request: (
        _narrowing_reply(query="sneakers", max_price=None)
        if "sales_narrow_query" in str(request) or "names something to buy" in str(request)
        else Reply({"intent": "sales_discovery", "confidence": 0.95})
    )
    chat = start_chat(shop)
    reply = chat.send(VAGUE)
    assert chat.state["sale"]["query"] == "sneakers"
    assert "Air Runner Black" in reply


def test_a_failing_model_leaves_the_clarifying_question(shop: Tenant, llm: LLMEmulator) -> None:
    llm.default = ServerError(500)
    chat = start_chat(shop)
    reply = chat.send(VAGUE)
    assert reply
    assert chat.state["journey_step"] == "sales.narrow"
    assert "Air Runner Black" not in reply
