"""Inbound sanitiser: make customer text safe to show a model and still easy to classify.

Runs on every inbound message before any classifier or LLM sees it. It removes
invisible/control characters (which can hide instructions or break templates), caps the
length (a WhatsApp essay costs tokens and time), and cuts out prompt-injection phrases:
attempts to replace the bot's instructions, give it a new role, or claim another
tenant's or customer's identity. Cutting (not bracketing) keeps the remaining words
intact for the deterministic classifiers; the flags record what was removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tulia.normalise import visible

MAX_INBOUND_CHARS = 1000

# Each pattern is one family of injection attempts; the name is what gets logged.
_INJECTION_PATTERNS: dict[str, re.Pattern[str]] = {
    "override_instructions": re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*"
        r"(?:previous|prior|above|earlier|system|original|existing)?\s*"
        r"(?:instructions?|prompts?|rules?|messages?|guidelines?)\b",
        re.IGNORECASE,
    ),
    "override_instructions_sw": re.compile(
        r"\b(?:puuza|sahau|achana\s+na)\s+(?:maagizo|maelekezo|sheria)\b(?:\s+\w+){0,3}",
        re.IGNORECASE,
    ),
    "role_change": re.compile(
        r"\b(?:you\s+are\s+now|from\s+now\s+on\s+you\s+are|act\s+as|pretend\s+(?:to\s+be|you\s+are)"
        r"|roleplay\s+as|new\s+instructions?\s*:?)",
        re.IGNORECASE,
    ),
    "role_prefix": re.compile(
        r"(?:^|\n)\s*(?:system|assistant|developer|tool)\s*:|<\|im_(?:start|end)\|>|\[/?INST\]"
        r"|<\/?(?:system|assistant)>",
        re.IGNORECASE,
    ),
    "identity_override": re.compile(
        r"\b(?:tenant|customer|conversation|request|shop|store)[ _]?id\s*[:=]\s*\S+"
        r"|\bswitch\s+(?:to\s+)?(?:another\s+|a\s+different\s+)?(?:tenant|shop|store|account)\b"
        r"|\bi\s+am\s+(?:the\s+|your\s+)?(?:owner|admin|administrator|developer|manager)\b",
        re.IGNORECASE,
    ),
}


@dataclass(frozen=True, slots=True)
class SanitizedText:
    text: str
    truncated: bool
    injection_flags: tuple[str, ...]

    @property
    def suspicious(self) -> bool:
        return bool(self.injection_flags)


def _cut_injections(text: str) -> tuple[str, tuple[str, ...]]:
    flags = []
    for name, pattern in _INJECTION_PATTERNS.items():
        text, count = pattern.subn(" ", text)
        if count:
            flags.append(name)
    return text, tuple(flags)


def sanitize_inbound(raw: str, max_chars: int = MAX_INBOUND_CHARS) -> SanitizedText:
    text = visible(raw)  # format characters too: a zero-width one hides a word
    truncated = len(text) > max_chars
    text = text[:max_chars]
    text, flags = _cut_injections(text)
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return SanitizedText(text=text, truncated=truncated, injection_flags=flags)
