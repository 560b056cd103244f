"""Inbound text cleaning at the gateway edge (SPEC §3).

Control and invisible formatting characters are removed (they hide text from staff and
confuse downstream parsers), the text is NFC-normalised so the same word compares
equal however the phone composed it, and the length is capped. Prompt-injection
neutralising happens later, in the conversation engine.
"""

from __future__ import annotations

from tulia.normalise import visible

MAX_TEXT_LENGTH = 4096  # WhatsApp's own limit for a text message


def clean_text(raw: str, limit: int = MAX_TEXT_LENGTH) -> str:
    return visible(raw, keep_format=True).strip()[:limit]
