"""Structured outputs of the JSON LLM nodes; the model must answer in exactly these shapes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from journeys.state import GovernorClass, Intent, Lang


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageReading(_Output):
    """One reading of a customer message: intent, language and governor in one call, so
    an unsure turn costs one LLM request, not three (issue 25)."""

    intent: Intent
    intent_confidence: float = Field(ge=0.0, le=1.0)
    language: Lang
    language_confidence: float = Field(ge=0.0, le=1.0)
    classification: GovernorClass
    governor_confidence: float = Field(ge=0.0, le=1.0)
