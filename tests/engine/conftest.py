"""Engine fixtures: a running OpenAI-compatible emulator and fresh conversation states."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from journeys.context import RunContext
from journeys.llm.breaker import CircuitBreaker
from journeys.llm.gateway import LLMGateway
from journeys.llm.settings import LLMSettings
from journeys.llm_emulator import LLMEmulator
from journeys.nodes.turn import start_turn
from journeys.state import ConversationState, new_state


@pytest.fixture
def emulator() -> Iterator[LLMEmulator]:
    with LLMEmulator().running() as running:
        yield running


@pytest.fixture
def make_gateway(emulator: LLMEmulator) -> Callable[..., LLMGateway]:
    """A gateway on the emulator with its own breaker (no state shared between tests)."""

    def build(timeout: float = 1.0, failure_threshold: int = 3) -> LLMGateway:
        settings = LLMSettings(
            api_key="sk-test", base_url=emulator.base_url, timeout_seconds=timeout
        )
        return LLMGateway(settings, breaker=CircuitBreaker(failure_threshold=failure_threshold))

    return build


@pytest.fixture
def ctx() -> RunContext:
    return RunContext(
        tenant_id="t-1", customer_id="c-1", conversation_id="conv-1", request_id="r-1"
    )


@pytest.fixture
def turn() -> Callable[..., ConversationState]:
    """State for a new inbound message, optionally carrying earlier state."""

    def build(
        text: str, base: ConversationState | None = None, **fields: object
    ) -> ConversationState:
        state = base or new_state(tenant_id="t-1", conversation_id="conv-1", request_id="r-1")
        state = ConversationState(**{**state, **fields})  # type: ignore[typeddict-item]
        return ConversationState(**{**state, **start_turn(state, text)})

    return build
