"""Tenant keyword triggers: a customer asking for a person in English or Swahili."""

from __future__ import annotations

from dataclasses import dataclass

from tenants.config import HandoffSettings
from tulia import words
from tulia.normalise import find_phrase

# Used when a tenant has emptied its list by mistake: asking for a human must always work.
BASELINE_TRIGGERS = words.phrases("handoff_baseline")


@dataclass(frozen=True)
class TriggerMatch:
    keyword: str


def triggers_for(settings: HandoffSettings) -> tuple[str, ...]:
    return tuple(settings.keyword_triggers) or BASELINE_TRIGGERS


def match_trigger(message: str, settings: HandoffSettings) -> TriggerMatch | None:
    """The tenant keyword found in the message, case- and accent-insensitively."""
    found = find_phrase(message, triggers_for(settings))
    return TriggerMatch(keyword=found) if found else None
