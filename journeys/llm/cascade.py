"""Cascade policy (SPEC §5.4): deterministic first, the LLM only below the node threshold.

Whatever the LLM does wrong, the deterministic answer is already in hand and stands. In
`llm` mode (TULIA_LLM_MODE) the threshold is ignored and the model is always asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from journeys.llm.gateway import LLMGateway

Result = TypeVar("Result")
Out = TypeVar("Out", bound=BaseModel)
Source = Literal["deterministic", "llm", "fallback"]


@dataclass(frozen=True, slots=True)
class CascadeResult(Generic[Result]):
    value: Result
    source: Source
    llm_called: bool
    outcome: str = "not_needed"


@dataclass(frozen=True, slots=True)
class NodeSpec(Generic[Out]):
    """What the LLM side of one JSON node needs: its name, output schema and prompt."""

    name: str
    schema: type[Out]
    system_prompt: str
    threshold: float


def run_cascade(
    spec: NodeSpec[Out],
    *,
    text: str,
    deterministic: Result,
    confidence: float,
    gateway: LLMGateway | None,
    adopt: Callable[[Out], Result],
) -> CascadeResult[Result]:
    """The node's answer: the deterministic one unless the LLM was needed and delivered."""
    if gateway is None or not gateway.settings.enabled:
        return CascadeResult(deterministic, "deterministic", llm_called=False)
    if confidence >= spec.threshold and not gateway.settings.always_asks:
        return CascadeResult(deterministic, "deterministic", llm_called=False)
    attempt = gateway.structured(spec.name, spec.schema, spec.system_prompt, text)
    if attempt.value is None:
        return CascadeResult(deterministic, "fallback", attempt.called, attempt.outcome)
    return CascadeResult(adopt(attempt.value), "llm", llm_called=True, outcome="ok")
