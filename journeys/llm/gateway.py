"""Structured calls to an OpenAI-compatible model, guarded by the provider's breaker.

`LLMGateway.structured` returns an attempt whose value is the parsed output or None.
None covers every way the call can go wrong (no key, breaker open, timeout, HTTP error,
malformed or out-of-schema JSON) because callers must treat them all the same: keep the
deterministic result. `called` says whether a request went out, for per-turn counting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from journeys.llm.breaker import CircuitBreaker, breaker_for
from journeys.llm.prompts import fence
from journeys.llm.settings import LLMSettings

logger = logging.getLogger("tulia.llm")
Out = TypeVar("Out", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Attempt(Generic[Out]):
    value: Out | None
    called: bool
    outcome: str  # "ok" | "disabled" | "breaker_open" | "failed:<error type>"


@dataclass
class LLMGateway:
    settings: LLMSettings
    breaker: CircuitBreaker | None = None
    _runnables: dict[type[BaseModel], Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.breaker is None:
            self.breaker = breaker_for(self.settings.provider)

    def _client(self) -> ChatOpenAI:
        return ChatOpenAI(
            model=self.settings.model,
            api_key=SecretStr(self.settings.api_key or ""),
            base_url=self.settings.base_url,
            timeout=self.settings.timeout_seconds,
            max_retries=0,  # a retry would double the wait; the breaker handles outages
            temperature=0,
        )

    def _runnable(self, schema: type[BaseModel]) -> Any:
        """One client per schema, built once: building it costs more than a local call."""
        if schema not in self._runnables:
            client = self._client()
            self._runnables[schema] = client.with_structured_output(schema, method="json_schema")
        return self._runnables[schema]

    def structured(self, node: str, schema: type[Out], system: str, text: str) -> Attempt[Out]:
        assert self.breaker is not None
        if not self.settings.enabled:
            return Attempt(None, called=False, outcome="disabled")
        if not self.breaker.allow():
            return Attempt(None, called=False, outcome="breaker_open")
        runnable = self._runnable(schema)
        try:
            result = runnable.invoke([SystemMessage(system), HumanMessage(fence(text))])
            parsed = result if isinstance(result, schema) else schema.model_validate(result)
        except Exception as exc:  # every provider failure degrades the same way
            self.breaker.record_failure()
            logger.warning("llm node %s failed: %s", node, type(exc).__name__)
            return Attempt(None, called=True, outcome=f"failed:{type(exc).__name__}")
        self.breaker.record_success()
        return Attempt(parsed, called=True, outcome="ok")
