"""Calls to an OpenAI-compatible model, guarded by the provider's breaker.

`structured` (JSON nodes) and `text` (phrasing of text replies) return an attempt whose
value is the answer or None. None covers every way a call can go wrong (no key, breaker
open, timeout, HTTP error, malformed or out-of-schema JSON, empty text) because callers
must treat them all the same: keep the deterministic result. `called` says whether a
request went out, for per-turn counting.

A gateway bound to a tenant (`for_tenant`) picks the model of the tenant's plan and
meters every call it makes against that tenant; the unbound gateway uses the base model
and meters nothing (there is nobody to bill). Bound copies share the breaker (one per
provider) and the client cache (one per model and output shape).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, SecretStr

from journeys.llm.breaker import CircuitBreaker, breaker_for
from journeys.llm.prompts import fence
from journeys.llm.settings import LLMSettings
from tenants.accessors import get_tenant
from tenants.errors import NotFound
from tulia.metering.usage import record_llm_call

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI

logger = logging.getLogger("tulia.llm")
Out = TypeVar("Out")
Schema = TypeVar("Schema", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Attempt(Generic[Out]):
    value: Out | None
    called: bool
    outcome: str  # "ok" | "disabled" | "breaker_open" | "failed:<error type>"


class EmptyAnswer(ValueError):
    """The model answered 200 with nothing usable (no content, or unparseable JSON)."""


def _usage(message: object) -> tuple[int, int]:
    meta = getattr(message, "usage_metadata", None) or {}
    return int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))


def tenant_plan(tenant_id: str) -> str | None:
    """The tenant's plan, read when the first call of a turn needs a model."""
    try:
        return str(get_tenant(tenant_id).plan)
    except NotFound:
        return None


@dataclass
class LLMGateway:
    settings: LLMSettings
    breaker: CircuitBreaker | None = None
    tenant_id: str | None = None
    plan: str | None = None
    _clients: dict[tuple[str, type[BaseModel] | None], Any] = field(
        default_factory=dict, repr=False
    )

    def __post_init__(self) -> None:
        if self.breaker is None:
            self.breaker = breaker_for(self.settings.provider)

    def for_tenant(self, tenant_id: str, plan: str | None = None) -> LLMGateway:
        """This gateway for one tenant's turn; without a plan it is read on first use."""
        return replace(self, tenant_id=str(tenant_id), plan=plan)

    @property
    def model(self) -> str:
        if self.plan is None and self.tenant_id is not None:
            self.plan = tenant_plan(self.tenant_id)
        return self.settings.model_for(self.plan)

    def _client(self, model: str | None = None) -> ChatOpenAI:
        # Imported here: with no model configured (TULIA_LLM_MODE=deterministic) the
        # OpenAI client (≈ 20 MB) never loads; when one is, tulia/preload.py loads it
        # once before the worker forks.
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=model or self.model,
            api_key=SecretStr(self.settings.api_key or ""),
            base_url=self.settings.base_url,
            timeout=self.settings.timeout_seconds,
            max_retries=0,  # a retry would double the wait; the breaker handles outages
            temperature=0,
        )

    def _runnable(self, model: str, schema: type[BaseModel] | None) -> Any:
        """One client per (model, schema), built once: building costs more than a call."""
        key = (model, schema)
        if key not in self._clients:
            client = self._client(model)
            self._clients[key] = (
                client
                if schema is None
                else client.with_structured_output(schema, method="json_schema", include_raw=True)
            )
        return self._clients[key]

    def structured(
        self, node: str, schema: type[Schema], system: str, text: str
    ) -> Attempt[Schema]:
        def parse(answer: Any) -> Schema:
            if answer.get("parsing_error") is not None or answer.get("parsed") is None:
                raise EmptyAnswer(str(answer.get("parsing_error")))
            parsed = answer["parsed"]
            return parsed if isinstance(parsed, schema) else schema.model_validate(parsed)

        messages = [SystemMessage(system), HumanMessage(fence(text))]
        return self._attempt(node, schema, messages, parse)

    def text(self, node: str, system: str, facts: str) -> Attempt[str]:
        """Free text (a phrased reply); `facts` is our own data, not the customer's."""

        def parse(answer: Any) -> str:
            content = answer.content if isinstance(answer, AIMessage) else None
            if not isinstance(content, str) or not content.strip():
                raise EmptyAnswer("no text")
            return content.strip()

        return self._attempt(node, None, [SystemMessage(system), HumanMessage(facts)], parse)

    def _attempt(
        self,
        node: str,
        schema: type[BaseModel] | None,
        messages: list[BaseMessage],
        parse: Callable[[Any], Any],
    ) -> Attempt[Any]:
        assert self.breaker is not None
        if not self.settings.enabled:
            return Attempt(None, called=False, outcome="disabled")
        if not self.breaker.allow():
            return Attempt(None, called=False, outcome="breaker_open")
        model = self.model
        raw: object = None  # the provider's message, for token counts even when unusable
        try:
            answer = self._runnable(model, schema).invoke(messages)
            raw = answer.get("raw") if isinstance(answer, dict) else answer
            value = parse(answer)
        except Exception as exc:  # every provider failure degrades the same way
            self.breaker.record_failure()
            logger.warning("llm node %s failed: %s", node, type(exc).__name__)
            self._meter(node, model, ok=False, raw=raw)
            return Attempt(None, called=True, outcome=f"failed:{type(exc).__name__}")
        self.breaker.record_success()
        self._meter(node, model, ok=True, raw=raw)
        return Attempt(value, called=True, outcome="ok")

    def _meter(self, node: str, model: str, *, ok: bool, raw: object) -> None:
        """Bill the call to the bound tenant; metering trouble never costs the reply."""
        if self.tenant_id is None:
            return
        prompt, completion = _usage(raw)
        try:
            record_llm_call(
                self.tenant_id,
                node=node,
                model=model,
                prompt_tokens=prompt,
                completion_tokens=completion,
                ok=ok,
            )
        except Exception:
            logger.exception("metering of llm node %s failed", node)
