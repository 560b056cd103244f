"""LLM settings from the environment. No key means every node stays deterministic."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_SECONDS = 4.0
OPENAI_PUBLIC_URL = "https://api.openai.com/v1"


@dataclass(frozen=True, slots=True)
class LLMSettings:
    api_key: str | None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS

    @property
    def enabled(self) -> bool:
        return bool(self.api_key)

    @property
    def provider(self) -> str:
        """Breaker key: one breaker per endpoint, whatever the model."""
        return self.base_url or OPENAI_PUBLIC_URL

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMSettings:
        env = os.environ if env is None else env
        timeout = float(env.get("OPENAI_TIMEOUT_SECONDS", DEFAULT_TIMEOUT_SECONDS))
        if timeout <= 0:
            raise ValueError("OPENAI_TIMEOUT_SECONDS must be positive")
        return cls(
            api_key=env.get("OPENAI_API_KEY") or None,
            base_url=env.get("OPENAI_BASE_URL") or None,
            model=env.get("OPENAI_MODEL", DEFAULT_MODEL),
            timeout_seconds=timeout,
        )

    def __repr__(self) -> str:  # never print the key
        return f"LLMSettings(base_url={self.base_url!r}, model={self.model!r}, key=***)"
