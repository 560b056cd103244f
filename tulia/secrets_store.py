"""Development-only secrets kept in the project's var/ folder.

Production sets DJANGO_SECRET_KEY and TULIA_FIELD_KEYS in the environment; the
embedded profiles generate their own once so `make run` needs no configuration.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from cryptography.fernet import Fernet


def dev_secret(folder: Path, name: str, *, fernet: bool = False) -> str:
    path = folder / f"{name}.secret"
    if path.exists():
        return path.read_text().strip()
    value = Fernet.generate_key().decode() if fernet else secrets.token_urlsafe(50)
    path.write_text(value)
    path.chmod(0o600)
    return value
