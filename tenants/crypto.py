"""Encryption at rest for tenant secrets (Twilio token, M-Pesa and PesaPal secrets).

Fernet (AES-128-CBC + HMAC) from `cryptography`; MultiFernet over TULIA_FIELD_KEYS so a
new key can be put first and old ciphertexts still decrypt until re-saved.
"""

from __future__ import annotations

from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

PREFIX = "fernet:"


class Secret:
    """A decrypted secret that will not print itself: logs and reprs show a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def masked(self) -> str:
        tail = self._value[-4:] if len(self._value) >= 12 else ""
        return f"••••{tail}" if self._value else ""

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __str__(self) -> str:
        return self.masked()

    __repr__ = __str__


@cache
def _fernet() -> MultiFernet:
    keys = [key for key in settings.TULIA_FIELD_KEYS if key]
    if not keys:
        raise ImproperlyConfigured("TULIA_FIELD_KEYS is empty")
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError as exc:
        raise ImproperlyConfigured(
            "TULIA_FIELD_KEYS must be comma-separated url-safe base64 Fernet keys"
        ) from exc


def encrypt(plaintext: str) -> str:
    return PREFIX + _fernet().encrypt(plaintext.encode()).decode()


def decrypt(stored: str) -> str:
    if not stored.startswith(PREFIX):
        raise ValueError("stored secret is not in the encrypted format")
    try:
        return _fernet().decrypt(stored.removeprefix(PREFIX).encode()).decode()
    except InvalidToken as exc:
        raise ValueError("stored secret cannot be decrypted with the configured keys") from exc
