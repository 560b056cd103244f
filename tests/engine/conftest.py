"""Engine fixtures: a running OpenAI-compatible emulator and fresh conversation states."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

import pytest

from journeys.context import RunContext
from journeys.flows.state import FlowState
from journeys.flows.turn import begin
from journeys.llm.breaker import CircuitBreaker
from journeys.llm.gateway import LLMGateway
from journeys.llm.settings import LLMSettings
from journeys.llm_emulator import LLMEmulator
from journeys.nodes.deps import EngineDeps
from journeys.state import new_state


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


def ctx_for_nodes() -> RunContext:
    return RunContext(
        tenant_id="t-1", customer_id="c-1", conversation_id="conv-1", request_id="r-1"
    )


@pytest.fixture
def ctx() -> RunContext:
    return ctx_for_nodes()


@pytest.fixture
def turn() -> Callable[..., FlowState]:
    """State for a new inbound message, opened as the graph's first node opens a turn,
    optionally carrying earlier state."""

    def build(text: str, base: FlowState | None = None, **fields: object) -> FlowState:
        state = base or new_state(tenant_id="t-1", conversation_id="conv-1", request_id="r-1")
        state = cast(FlowState, {**state, **fields, "inbound_text": text})
        return cast(FlowState, {**state, **begin(state, ctx_for_nodes(), EngineDeps())})

    return build
