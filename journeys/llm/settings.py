"""LLM settings from the environment. No key means every node stays deterministic.

- `TULIA_LLM_MODE`: `deterministic` (never call a model), `cascade` (JSON nodes ask the
  model only below their confidence threshold; text replies stay templates) or `llm`
  (JSON nodes always ask; text replies are phrased by the model, then checked). Default:
  `cascade` with an `OPENAI_API_KEY`, `deterministic` without. Asking for `cascade` or
  `llm` without a key is a configuration error, not a quiet downgrade.
- `TULIA_LLM_MODELS`: JSON object plan -> model, merged over the defaults below;
  `OPENAI_MODEL`, when set, is the default for every plan the map does not name.

Every bad value raises `ValueError` naming the variable, so start-up fails loudly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, cast

LLMMode = Literal["deterministic", "cascade", "llm"]
MODES: tuple[LLMMode, ...] = ("deterministic", "cascade", "llm")
# The tenant plans (tenants.models.Tenant.Plan mirrors these; a test keeps them equal).
# Spelled out here because settings are read before Django can import models.
PLANS = ("starter", "growth", "pro")
DEFAULT_PLAN = "starter"
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_PLAN_MODELS: Mapping[str, str] = MappingProxyType(
    {"starter": DEFAULT_MODEL, "growth": DEFAULT_MODEL, "pro": "gpt-4o"}
)
DEFAULT_TIMEOUT_SECONDS = 4.0
OPENAI_PUBLIC_URL = "https://api.openai.com/v1"


def _mode(raw: str | None, has_key: bool) -> LLMMode:
    if not raw:
        return "cascade" if has_key else "deterministic"
    if raw not in MODES:
        raise ValueError(f"TULIA_LLM_MODE must be one of {', '.join(MODES)}; got {raw!r}")
    if raw != "deterministic" and not has_key:
        raise ValueError(f"TULIA_LLM_MODE={raw} needs OPENAI_API_KEY")
    return cast(LLMMode, raw)


def plan_models(raw: str | None, default_model: str | None = None) -> dict[str, str]:
    """The plan -> model map: defaults, then OPENAI_MODEL for all, then the JSON map."""
    models = dict(DEFAULT_PLAN_MODELS)
    if default_model:
        models = dict.fromkeys(PLANS, default_model)
    if not raw:
        return models
    try:
        given = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"TULIA_LLM_MODELS is not valid JSON: {exc}") from exc
    if not isinstance(given, dict):
        raise ValueError("TULIA_LLM_MODELS must be a JSON object of plan -> model")
    unknown = sorted(set(given) - set(PLANS))
    if unknown:
        raise ValueError(f"TULIA_LLM_MODELS names unknown plans {unknown}; plans: {PLANS}")
    for plan, model in given.items():
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"TULIA_LLM_MODELS[{plan!r}] must be a non-empty model name")
        models[plan] = model.strip()
    return models


@dataclass(frozen=True, slots=True)
class LLMSettings:
    api_key: str | None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    mode: LLMMode | None = None  # None: the default for the key (cascade / deterministic)
    models: Mapping[str, str] = field(default_factory=dict)

    @property
    def effective_mode(self) -> LLMMode:
        if self.mode is not None:
            return self.mode
        return "cascade" if self.api_key else "deterministic"

    @property
    def enabled(self) -> bool:
        return bool(self.api_key) and self.effective_mode != "deterministic"

    @property
    def phrases_text(self) -> bool:
        """Text nodes are phrased by the model only in `llm` mode (cascade keeps templates,
        which are always confident)."""
        return self.enabled and self.effective_mode == "llm"

    @property
    def always_asks(self) -> bool:
        """In `llm` mode JSON nodes ask the model whatever the rules' confidence."""
        return self.enabled and self.effective_mode == "llm"

    @property
    def provider(self) -> str:
        """Breaker key: one breaker per endpoint, whatever the model."""
        return self.base_url or OPENAI_PUBLIC_URL

    def model_for(self, plan: str | None) -> str:
        """The model of a tenant plan; an unknown or missing plan gets the base model."""
        return self.models.get(plan or DEFAULT_PLAN) or self.model

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMSettings:
        env = os.environ if env is None else env
        try:
            timeout = float(env.get("OPENAI_TIMEOUT_SECONDS", DEFAULT_TIMEOUT_SECONDS))
        except ValueError as exc:
            raise ValueError("OPENAI_TIMEOUT_SECONDS must be a number of seconds") from exc
        if timeout <= 0:
            raise ValueError("OPENAI_TIMEOUT_SECONDS must be positive")
        api_key = env.get("OPENAI_API_KEY") or None
        base_model = env.get("OPENAI_MODEL") or None
        return cls(
            api_key=api_key,
            base_url=env.get("OPENAI_BASE_URL") or None,
            model=base_model or DEFAULT_MODEL,
            timeout_seconds=timeout,
            mode=_mode(env.get("TULIA_LLM_MODE") or None, bool(api_key)),
            models=plan_models(env.get("TULIA_LLM_MODELS"), base_model),
        )

    def __repr__(self) -> str:  # never print the key
        return (
            f"LLMSettings(base_url={self.base_url!r}, mode={self.effective_mode!r}, "
            f"models={dict(self.models)!r}, key=***)"
        )
