"""The journeys' own reply scenarios (payment steps, failures, hints) in en/sw/sheng.

Same reproducible choice as the engine's templates (Property 14): the variation is a
sha256 of conversation, turn and scenario. Amounts arrive already formatted from tool
outputs; nothing here computes a price.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from journeys.templates.library import ReplyKey, template_language

_DIR = Path(__file__).parent / "phrases"


@cache
def _phrases(language: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_DIR / f"{language}.json").read_text("utf-8"))
    return data


def say(key: ReplyKey, language: str, scenario: str, /, **facts: object) -> str:
    options: list[str] = _phrases(template_language(language))[scenario]
    seed = f"{key.conversation_id}:{key.turn}:flows.{scenario}".encode()
    index = int.from_bytes(hashlib.sha256(seed).digest()[:8], "big") % len(options)
    return options[index].format(**facts)


def label(language: str, table: str, name: str) -> str:
    entries: dict[str, str] = _phrases(template_language(language))[table]
    return entries.get(name, name)
