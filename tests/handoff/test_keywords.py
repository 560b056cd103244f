"""Keyword triggers: tenant-configurable, case- and accent-insensitive, whole words."""

from __future__ import annotations

import pytest

from tenants.config import HandoffSettings
from tulia.handoff.keywords import match_trigger

DEFAULTS = HandoffSettings()


@pytest.mark.parametrize(
    "message",
    [
        "I want to talk to an AGENT",
        "Human please!!",
        "Nataka kuongea na mtu",
        "nataka   KUONGEA na Mtú.",
        "Ájent? no... agént",
    ],
)
def test_default_triggers_fire_in_english_and_swahili(message: str) -> None:
    assert match_trigger(message, DEFAULTS) is not None


@pytest.mark.parametrize("message", ["agentur ya viatu", "humanity", "mtumba shoes", "hello"])
def test_triggers_do_not_fire_inside_other_words(message: str) -> None:
    assert match_trigger(message, DEFAULTS) is None


def test_tenant_keywords_replace_the_defaults() -> None:
    custom = HandoffSettings(keyword_triggers=["meneja", "Café manager"])
    assert match_trigger("naomba MENEJA", custom).keyword == "meneja"
    assert match_trigger("the cafe manager please", custom) is not None
    assert match_trigger("agent", custom) is None


def test_empty_keyword_list_falls_back_to_a_baseline() -> None:
    assert match_trigger("niongee na mtu", HandoffSettings(keyword_triggers=[])) is not None
