"""LLM provider and Daraja outages at the level the customer sees: a turn through
`journeys.handler.handle_turn` on real emulators and a real database."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from journeys import handler
from journeys.llm.breaker import breaker_for
from journeys.llm_emulator import Hang, LLMEmulator, ServerError
from payments.emulators.daraja import DarajaEmulator
from payments.models import PaymentRequest
from tenants.context import tenant_context
from tenants.models import Tenant
from tenants.services import update_tenant
from tests.flows.chat import start_chat
from tests.payments.conftest import equip
from tools.runner import call_tool
from tulia.text import entry

pytestmark = pytest.mark.django_db
PAYMENT_FAILED = entry("flows.payment_failed", "en")
VAGUE = "I want to buy"  # the rules are unsure, so the turn asks the model


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMEmulator]:
    """The handler's LLM settings on the emulator (its port makes a fresh breaker)."""
    with LLMEmulator().running() as emulator:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", emulator.base_url)
        monkeypatch.setenv("OPENAI_TIMEOUT_SECONDS", "0.3")
        handler._deps.cache_clear()
        yield emulator
    handler._deps.cache_clear()


@pytest.mark.parametrize("failure", [ServerError(500), ServerError(503), Hang(3)])
def test_llm_outage_keeps_deterministic_replies_and_opens_the_breaker(
    stk_only_shop: Tenant, llm: LLMEmulator, failure: ServerError | Hang
) -> None:
    llm.default = failure
    chat = start_chat(stk_only_shop)
    replies = [chat.send(VAGUE) for _ in range(4)]
    assert all(replies)  # every turn still answered
    assert chat.state["journey_step"] == "sales.narrow"  # the rules' clarifying question
    assert breaker_for(llm.base_url).state == "open"
    calls = len(llm.requests)
    assert chat.send(VAGUE)  # answered without asking the model at all
    assert len(llm.requests) == calls


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _use_daraja(shop: Tenant, base_url: str) -> None:
    equip(shop, base_url)
    update_tenant(shop, payment_methods=["mpesa_stk"])  # equip enables all three


def _payments(shop: Tenant) -> int:
    with tenant_context(shop.id):
        return PaymentRequest.objects.count()


def test_daraja_down_customer_is_told_and_can_pay_once_it_is_back(
    stk_only_shop: Tenant, daraja: DarajaEmulator
) -> None:
    _use_daraja(stk_only_shop, f"http://127.0.0.1:{_closed_port()}")
    chat = start_chat(stk_only_shop)
    for line in ("I want sneakers", "1", "41", "1"):
        chat.send(line)
    reply = chat.send("yes")
    assert reply in PAYMENT_FAILED  # told plainly, with how to try again (PAY)
    assert daraja.pushes == {}
    _use_daraja(stk_only_shop, daraja.base_url)
    assert "YES" in chat.send("PAY")  # the same total is confirmed again
    chat.send("yes")
    assert len(daraja.pushes) == 1
    assert _payments(stk_only_shop) == 1


def test_daraja_down_stk_push_tool_error_is_retryable(stk_only_shop: Tenant, make_order) -> None:
    _use_daraja(stk_only_shop, f"http://127.0.0.1:{_closed_port()}")
    order = make_order(stk_only_shop, 1500)
    payload = {
        "tenant_id": str(stk_only_shop.id),
        "request_id": "req-down",
        "customer_id": order.customer_id,
        "order_id": order.pk,
        "confirmed_amount_kes": 1500,
    }
    result = call_tool("payment_initiate_stk_push", payload)
    assert (result.ok, result.error.code, result.error.retryable) == (False, "unreachable", True)
