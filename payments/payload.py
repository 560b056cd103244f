"""The base of every provider payload model (Daraja and PesaPal alike)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class ProviderPayload(BaseModel):
    """Unknown fields are ignored (providers add them); parsed payloads never change."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL text cannot hold NUL: a payload carrying one is unparseable (kept
        # raw and flagged for review), not a database error answered with a 500.
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("NUL character in a text field")
        return value
