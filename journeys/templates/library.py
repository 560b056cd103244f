"""Template data and the reproducible choice among variations (Property 14).

Each language has one JSON file of scenarios, each a list of phrasings. Which phrasing
a reply uses is a hash of (conversation id, turn number, scenario): the same turn of
the same conversation always reads the same, while a long conversation does not repeat
one sentence word for word. Python's `hash()` is salted per process, so sha256 is used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from journeys.state import Lang

DATA_DIR = Path(__file__).parent / "data"
TEMPLATE_LANGUAGES = ("en", "sw", "sheng")


@dataclass(frozen=True, slots=True)
class ReplyKey:
    """What makes a reply reproducible: the conversation and its turn number."""

    conversation_id: str
    turn: int


@cache
def _catalog(language: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA_DIR / f"{language}.json").read_text("utf-8"))
    return data


def template_language(language: Lang | str) -> str:
    """Replies exist in en/sw/sheng; a "mixed" (or unknown) language reads English."""
    return language if language in TEMPLATE_LANGUAGES else "en"


def variations(language: str, scenario: str) -> list[str]:
    found: list[str] = _catalog(template_language(language))[scenario]
    return found


def lookup(language: str, table: str, key: str, default_key: str = "unknown") -> str:
    """A label from a per-language table (topics, statuses), falling back to its default."""
    entries: dict[str, str] = _catalog(template_language(language))[table]
    return entries.get(key, entries.get(default_key, key))


def phrase(language: str, name: str) -> str:
    found: str = _catalog(template_language(language))[name]
    return found


def pick(key: ReplyKey, language: str, scenario: str) -> str:
    options = variations(language, scenario)
    seed = f"{key.conversation_id}:{key.turn}:{scenario}".encode()
    index = int.from_bytes(hashlib.sha256(seed).digest()[:8], "big") % len(options)
    return options[index]


def fill(key: ReplyKey, language: str, scenario: str, /, **facts: object) -> str:
    return pick(key, language, scenario).format(**facts)


def format_money(amount: Decimal | int | str, currency: str = "KES") -> str:
    """'KES 1,250' (cents only when there are any); the amount is never rounded away."""
    value = Decimal(str(amount))
    text = f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"
    return f"{currency} {text}"
