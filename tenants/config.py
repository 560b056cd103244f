"""Typed shapes of a tenant's structured configuration (stored as JSON on Tenant).

Pydantic validates on every save so a bad value is refused with a clear message and
nothing is half-saved; the conversation engine reads the same models.
"""

from __future__ import annotations

from datetime import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LANGUAGES: tuple[str, ...] = ("en", "sw", "sheng")
PaymentMethod = Literal["mpesa_stk", "mpesa_c2b", "pesapal_card"]
PAYMENT_METHODS: tuple[str, ...] = ("mpesa_stk", "mpesa_c2b", "pesapal_card")
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OpeningWindow(_Strict):
    opens: time
    closes: time

    @model_validator(mode="after")
    def _closes_after_opening(self) -> OpeningWindow:
        if self.closes <= self.opens:
            raise ValueError("closing time must be after opening time")
        return self


class BusinessHours(_Strict):
    """Opening windows per weekday in the tenant's timezone; a missing day is closed."""

    mon: list[OpeningWindow] = Field(default_factory=list)
    tue: list[OpeningWindow] = Field(default_factory=list)
    wed: list[OpeningWindow] = Field(default_factory=list)
    thu: list[OpeningWindow] = Field(default_factory=list)
    fri: list[OpeningWindow] = Field(default_factory=list)
    sat: list[OpeningWindow] = Field(default_factory=list)
    sun: list[OpeningWindow] = Field(default_factory=list)

    def windows(self, weekday: int) -> list[OpeningWindow]:
        """Windows for Python's weekday number (Monday is 0)."""
        windows: list[OpeningWindow] = getattr(self, WEEKDAYS[weekday])
        return windows


class EscalationRules(_Strict):
    """When the bot hands over to a person (SPEC §5.5)."""

    on_human_request: bool = True
    on_payment_dispute: bool = True
    on_sensitive_content: bool = True
    sensitive_topics: list[str] = Field(default_factory=lambda: ["legal", "medical"])
    max_consecutive_tool_errors: int = Field(default=2, ge=1, le=10)
    max_clarification_loops: int = Field(default=3, ge=1, le=10)
    frustration_turns: int = Field(default=2, ge=1, le=10)


class Compliance(_Strict):
    marketing_requires_opt_in: bool = True
    opt_out_keywords: list[str] = Field(
        default_factory=lambda: ["stop", "unsubscribe", "acha", "sitaki"]
    )
    data_retention_days: int = Field(default=365, ge=30, le=3650)
    show_privacy_notice: bool = True

    @field_validator("opt_out_keywords")
    @classmethod
    def _keywords_not_blank(cls, value: list[str]) -> list[str]:
        cleaned = [word.strip().lower() for word in value]
        if any(not word for word in cleaned):
            raise ValueError("opt-out keywords cannot be blank")
        return cleaned


class HandoffSettings(_Strict):
    business_hours: BusinessHours = Field(default_factory=BusinessHours)
    keyword_triggers: list[str] = Field(
        default_factory=lambda: ["agent", "human", "mtu", "nataka kuongea na mtu"]
    )
    agent_capacity: int = Field(default=5, ge=1, le=100)
    open_ticket_after_hours: bool = True
