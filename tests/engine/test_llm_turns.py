"""Text replies phrased by the model in llm mode, through whole turns (handle_turn).

The real graph, tools, database and the real langchain-openai client run; the model is
the OpenAI-compatible emulator. Structured requests get sensible scripted answers so
the JSON nodes agree with the rules; phrasing requests get what each test scripts.
"""

# ruff: noqa: F811 - the flow fixtures are imported by name and then requested by name.
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from journeys import handler
from journeys.llm.breaker import breaker_for
from journeys.llm_emulator import LLMEmulator, Reply, ServerError, Text, by_kind, schema_name
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.flows.chat import Chat, start_chat
from tests.flows.conftest import (  # noqa: F401 (pytest fixtures)
    all_tools_registered,
    daraja,
    pesapal,
    shop,
    stock_sneakers,
)
from tulia.metering.models import LlmUsage

pytestmark = pytest.mark.django_db
MODELS = '{"starter": "emu-small", "pro": "emu-large"}'
_FENCED = re.compile(r"Reply to reword:\n<<<\n(.*?)\n>>>", re.DOTALL)


def template_of(request: dict[str, Any]) -> str:
    """The template reply a phrasing request carried (what must stand on rejection)."""
    found = _FENCED.search(request["messages"][-1]["content"])
    assert found, "not a phrasing request"
    return found.group(1)


def structured(intent: str, query: str = "sneakers") -> Callable[[dict[str, Any]], Reply]:
    """Answers of the JSON nodes that agree with what the rules would say."""
    answers = {
        "MessageReading": {
            "intent": intent,
            "intent_confidence": 0.95,
            "language": "en",
            "language_confidence": 0.95,
            "classification": "business",
            "governor_confidence": 0.95,
        },
        "NarrowOutput": {"action": "search", "query": query, "confidence": 0.9},
    }
    return lambda request: Reply({**answers[str(schema_name(request))]})


def rewording(edit: Callable[[str], str]) -> Callable[[dict[str, Any]], Text]:
    return lambda request: Text(edit(template_of(request)))


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., LLMEmulator]]:
    """Point the handler's LLM settings at a running emulator, in the mode asked for."""
    emulators: list[LLMEmulator] = []

    def start(mode: str = "llm", **env: str) -> LLMEmulator:
        emulator = LLMEmulator().start()
        emulators.append(emulator)
        settings = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": emulator.base_url}
        settings |= {"TULIA_LLM_MODE": mode, "TULIA_LLM_MODELS": MODELS, **env}
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        handler._deps.cache_clear()
        return emulator

    yield start
    for emulator in emulators:
        emulator.stop()
    handler._deps.cache_clear()


def _sneakers(shop: Tenant, emulator: LLMEmulator, edit: Callable[[str], str]) -> Chat:
    emulator.default = by_kind(structured("sales_discovery"), rewording(edit))
    chat = start_chat(shop)
    chat.send("I want sneakers")
    return chat


def _warm(template: str) -> str:
    lines = template.splitlines()
    return "\n".join(["Karibu! These sneakers are in stock:", *lines[1:]])


def test_a_faithful_wording_is_sent_and_stored(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    chat = _sneakers(shop, emulator, _warm)
    (request,) = emulator.phrasing
    assert chat.replies[-1] == _warm(template_of(request))
    assert chat.replies[-1].startswith("Karibu!")
    assert "catalog_present_options" in chat.state["graph_path"]


def test_the_model_gets_the_node_language_template_and_facts(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    _sneakers(shop, emulator, _warm)
    prompt = emulator.phrasing[0]["messages"][-1]["content"]
    assert "Node: catalog_present_options" in prompt
    assert "Language: English" in prompt
    assert "1. Air Runner Black" in template_of(emulator.phrasing[0])
    assert '"price_from"' in prompt  # the catalog_search output itself
    assert "+2547" not in prompt  # the customer's phone stays out of the prompt


def test_every_call_of_the_turn_is_counted(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    chat = _sneakers(shop, emulator, _warm)
    assert chat.state["llm_calls"] == len(emulator.requests)
    assert len(emulator.phrasing) == 1


def test_an_invented_price_leaves_the_template(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    chat = _sneakers(shop, emulator, lambda t: t + "\nWeekend deal: KES 3,999 only!")
    assert chat.replies[-1] == template_of(emulator.phrasing[0])
    assert "3,999" not in chat.replies[-1]


def test_a_dropped_option_leaves_the_template(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    drop_second = lambda t: "\n".join(x for x in t.splitlines() if not x.startswith("2."))  # noqa: E731
    chat = _sneakers(shop, emulator, drop_second)
    assert chat.replies[-1] == template_of(emulator.phrasing[0])
    assert "2. Court Classic White" in chat.replies[-1]


def test_a_dropped_link_leaves_the_template(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    no_link = lambda t: re.sub(r"https?://\S+", "our catalog page", t)  # noqa: E731
    emulator.default = by_kind(structured("sales_discovery", "everything"), rewording(no_link))
    chat = start_chat(shop)
    reply = chat.send("show me everything")
    assert reply == template_of(emulator.phrasing[0])
    assert "https://kicks.example.shop/catalog" in reply


def test_a_server_error_leaves_the_template(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    emulator.default = by_kind(structured("sales_discovery"), ServerError(500))
    reply = start_chat(shop).send("I want sneakers")
    assert reply == template_of(emulator.phrasing[0])


def test_an_outage_opens_the_breaker_and_turns_go_on_without_calls(shop: Tenant, llm_env) -> None:
    emulator = llm_env()
    emulator.default = ServerError(503)
    chat = start_chat(shop)
    assert "1. Air Runner Black" in chat.send("I want sneakers")
    assert len(emulator.requests) == 3  # the default failure threshold
    assert breaker_for(emulator.base_url).state == "open"
    assert "1. Air Runner Black" in chat.send("sneakers")
    assert (len(emulator.requests), chat.state["llm_calls"]) == (3, 0)


def test_a_timeout_leaves_the_template(shop: Tenant, llm_env) -> None:
    emulator = llm_env(OPENAI_TIMEOUT_SECONDS="0.5")
    emulator.default = by_kind(structured("sales_discovery"), Text("late", delay=5))
    chat = start_chat(shop)
    reply = chat.send("I want sneakers")
    assert reply == template_of(emulator.phrasing[0])


def test_the_tenant_plan_picks_the_model(shop: Tenant, stranger: Tenant, llm_env) -> None:
    emulator = llm_env()
    update_tenant(shop, plan=Tenant.Plan.PRO)
    _sneakers(shop, emulator, _warm)
    assert emulator.phrasing[0]["model"] == "emu-large"
    stock_sneakers(stranger)
    _sneakers(stranger, emulator, _warm)
    assert [r["model"] for r in emulator.phrasing] == ["emu-large", "emu-small"]


def test_the_phrasing_call_is_metered_for_its_tenant(
    shop: Tenant, stranger: Tenant, llm_env
) -> None:
    emulator = llm_env()
    _sneakers(shop, emulator, _warm)
    with tenant_context(shop.id):
        rows = list(LlmUsage.objects.filter(node="catalog_present_options"))
    assert [(r.model, r.calls, r.failures) for r in rows] == [("emu-small", 1, 0)]
    with tenant_context(stranger.id):
        assert not LlmUsage.objects.exists()


def test_deterministic_mode_asks_no_model(shop: Tenant, llm_env) -> None:
    emulator = llm_env("deterministic")
    chat = start_chat(shop)
    assert "1. Air Runner Black" in chat.send("I want sneakers")
    assert (emulator.requests, chat.state["llm_calls"]) == ([], 0)
    assert "catalog_present_options" in chat.state["graph_path"]


def test_cascade_mode_keeps_text_replies_as_templates(shop: Tenant, llm_env) -> None:
    emulator = llm_env("cascade")
    emulator.default = by_kind(structured("sales_discovery"), Text("Karibu sana!"))
    chat = start_chat(shop)
    assert "1. Air Runner Black" in chat.send("I want sneakers")
    assert emulator.phrasing == []
