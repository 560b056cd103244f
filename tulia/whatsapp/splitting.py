"""Splitting long replies under Twilio's 1600-character Body limit (error 21617).

Cuts prefer a paragraph break, then a line break, then a sentence end, then a space,
and only cut inside a word when a "word" is longer than the limit.
"""

from __future__ import annotations

import re

TWILIO_BODY_LIMIT = 1600
_BOUNDARIES = (
    re.compile(r"\n\s*\n"),
    re.compile(r"\n"),
    re.compile(r"[.!?…]\s"),
    re.compile(r"\s"),
)


def _cut_point(text: str, limit: int) -> int:
    window = text[: limit + 1]
    for pattern in _BOUNDARIES:
        ends = [match.end() for match in pattern.finditer(window) if match.end() <= limit]
        # A cut in the first quarter would leave a tiny part and many more after it.
        if ends and ends[-1] > limit // 4:
            return ends[-1]
    return limit


def split_body(text: str, limit: int = TWILIO_BODY_LIMIT) -> list[str]:
    """Parts of `text`, each at most `limit` characters, none empty, order kept."""
    parts: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = _cut_point(rest, limit)
        part = rest[:cut].strip()
        if part:
            parts.append(part)
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return parts
