"""Structured outputs of the JSON LLM nodes; the model must answer in exactly these shapes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from journeys.state import GovernorClass, Intent, Lang


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IntentOutput(_Output):
    intent: Intent
    confidence: float = Field(ge=0.0, le=1.0)


class LanguageOutput(_Output):
    language: Lang
    confidence: float = Field(ge=0.0, le=1.0)


class GovernorOutput(_Output):
    classification: GovernorClass
    confidence: float = Field(ge=0.0, le=1.0)
