"""What nodes need besides state and identity: today only the optional LLM gateway."""

from __future__ import annotations

from dataclasses import dataclass, replace

from journeys.llm.gateway import LLMGateway
from journeys.llm.settings import LLMSettings


@dataclass(frozen=True, slots=True)
class EngineDeps:
    gateway: LLMGateway | None = None  # None: every node deterministic

    @classmethod
    def from_env(cls) -> EngineDeps:
        settings = LLMSettings.from_env()
        return cls(gateway=LLMGateway(settings) if settings.enabled else None)

    def for_turn(self, tenant_id: str, plan: str | None = None) -> EngineDeps:
        """These deps for one tenant's turn: its plan's model, its metering."""
        if self.gateway is None:
            return self
        return replace(self, gateway=self.gateway.for_tenant(tenant_id, plan))
