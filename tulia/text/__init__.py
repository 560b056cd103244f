"""Everything a customer reads, in English, Kiswahili and Sheng: one catalog, one `say`.

Texts live in one JSON file per language next to this module, grouped by the part of
the product that sends them, and named by a dotted key ("flows.stk_sent",
"handoff.queued"). An entry is a sentence, a list of equally good phrasings, or a table
of labels (statuses, topics, weekdays). Facts are filled in with `str.format`; nothing
here computes a price or a status, so a reply can only state what a tool gave it.

Which phrasing a reply uses is a sha256 of (conversation, turn, key) (Property 14): the
same turn always reads the same, while a long conversation does not repeat one sentence
word for word. Python's `hash()` is salted per process, so it cannot serve.

A language outside en/sw/sheng (a "mixed" message, an unknown code) reads English.

The shop's tone (Tenant.tone_style) is a second dimension: each file's `tones` section
holds, per tone, the conversational keys worded in that tone, with the same facts. A
reply rendered for a turn carries the tone in its ReplyKey, so every flow that words a
reply through `say` follows the shop's tone without passing it along. A notice sent
outside a turn (payment outcome, order update, return or refund decision) has no ReplyKey
and is worded by `notice`, which names the tone. A key the tone does not word (instructions such as
"Reply PAY") reads the plain text, which is the friendly one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "sw", "sheng")
DATA_DIR = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class ReplyKey:
    """What makes a reply reproducible: the conversation and its turn number."""

    conversation_id: str
    turn: int
    tone: str | None = None


def language_of(language: str | None) -> str:
    return language if language in LANGUAGES else "en"


@cache
def _file(language: str) -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads((DATA_DIR / f"{language}.json").read_text("utf-8"))
    return data


@cache
def catalog(language: str) -> dict[str, dict[str, Any]]:
    """The plain sections (the tones aside): what every language must hold key for key."""
    return {section: names for section, names in _file(language).items() if section != "tones"}


def tones(language: str) -> dict[str, dict[str, Any]]:
    """Per tone, the dotted keys it words differently: {"playful": {"reply.unknown": [...]}}."""
    return _file(language).get("tones", {})


def entry(key: str, language: str | None) -> Any:
    """The raw entry (sentence, phrasings or table); KeyError names a missing key."""
    section, _, name = key.partition(".")
    return catalog(language_of(language))[section][name]


def say(key: str, language: str | None, at: ReplyKey | None = None, /, **facts: object) -> str:
    """The text for `key` with `facts` filled in.

    With `at`, one of the key's phrasings is chosen reproducibly for that turn, in the
    turn's tone; without it, the first phrasing is used.
    """
    return _render(key, language, at, at.tone if at is not None else None, facts)


def notice(key: str, language: str | None, tone: str | None, /, **facts: object) -> str:
    """A notice sent outside a conversation turn (payment outcome, order update, return
    or refund decision): the first phrasing, worded in the shop's `tone`."""
    return _render(key, language, None, tone, facts)


def _render(
    key: str, language: str | None, at: ReplyKey | None, tone: str | None, facts: dict[str, object]
) -> str:
    found = _toned(key, language, tone) if tone else None
    if found is None:
        found = entry(key, language)
    if isinstance(found, list):
        found = found[_index(at, key, len(found))] if at is not None else found[0]
    if not isinstance(found, str):
        raise TypeError(f"{key} is a table; use label()")
    return found.format(**facts)


def _toned(key: str, language: str | None, tone: str) -> Any:
    return tones(language_of(language)).get(tone, {}).get(key)


def _index(at: ReplyKey, key: str, count: int) -> int:
    seed = f"{at.conversation_id}:{at.turn}:{key}".encode()
    return int.from_bytes(hashlib.sha256(seed).digest()[:8], "big") % count


def label(
    table: str,
    name: str,
    language: str | None,
    *,
    default: str | None = None,
    tone: str | None = None,
) -> str:
    """A label from a table; an unlisted name reads as the `default` entry, else as itself.
    A table the shop's `tone` words (order updates) is read in that tone."""
    entries: dict[str, str] = (_toned(table, language, tone) if tone else None) or entry(
        table, language
    )
    if name in entries:
        return entries[name]
    return entries.get(default, name) if default is not None else name


def format_money(amount: Decimal | int | str, currency: str = "KES") -> str:
    """'KES 1,250' (cents only when there are any); the amount is never rounded away."""
    value = Decimal(str(amount))
    text = f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"
    return f"{currency} {text}"
