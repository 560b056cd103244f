"""Inbound text cleaning at the gateway edge (SPEC §3).

Control and invisible formatting characters are removed (they hide text from staff and
confuse downstream parsers), the text is NFC-normalised so the same word compares
equal however the phone composed it, and the length is capped. Prompt-injection
neutralising happens later, in the conversation engine.
"""

from __future__ import annotations

import unicodedata

MAX_TEXT_LENGTH = 4096  # WhatsApp's own limit for a text message
_KEEP = {"\n", "\t"}
# Bidirectional overrides can make a message display differently from what it says.
_BIDI_CONTROLS = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def _allowed(char: str) -> bool:
    if char in _KEEP:
        return True
    if char in _BIDI_CONTROLS:
        return False
    category = unicodedata.category(char)
    # Cc: control characters. Cf is kept apart from bidi controls: emoji use ZWJ (Cf).
    return category not in ("Cc", "Cs", "Co")


def clean_text(raw: str, limit: int = MAX_TEXT_LENGTH) -> str:
    text = unicodedata.normalize("NFC", raw)
    text = "".join(char for char in text if _allowed(char))
    return text.strip()[:limit]
