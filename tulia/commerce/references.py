"""Human-friendly order references, also used as the M-Pesa account reference."""

from __future__ import annotations

import secrets

# No 0/O or 1/I/L: references are read aloud and typed on phones.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
RANDOM_PART = 6


def tenant_prefix(slug: str) -> str:
    """'kicks-nairobi' -> 'KN', 'mama-mboga' -> 'MM', 'duka' -> 'DU'."""
    words = [word for word in slug.upper().split("-") if word and word[0].isalnum()]
    if len(words) >= 2:
        return "".join(word[0] for word in words[:3])
    return (words[0][:2] if words else "TL").ljust(2, "X")


def new_reference(slug: str) -> str:
    """At most 3 + 1 + 6 = 10 characters, within M-Pesa's 12-character limit."""
    suffix = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_PART))
    return f"{tenant_prefix(slug)}-{suffix}"
