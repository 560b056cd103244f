"""Run context handed to every graph node and tool: who this turn is for.

Identity lives here, not in the state the model can see or the arguments it can choose
(STYLE 3). Every field is required: a turn without a tenant or customer is a bug, and
defaulting one would risk answering for the wrong shop.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class RunContext:
    tenant_id: str
    customer_id: str
    conversation_id: str
    request_id: str

    def __post_init__(self) -> None:
        for name in ("tenant_id", "customer_id", "conversation_id", "request_id"):
            if not getattr(self, name):
                raise ValueError(f"RunContext.{name} is required")
