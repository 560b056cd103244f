"""Model fields shared by tenant-owned models."""

from __future__ import annotations

from typing import Any

from django.db import models

from tenants.crypto import Secret, decrypt, encrypt


class EncryptedSecretField(models.TextField):
    """Stores a Fernet ciphertext; Python code sees a `Secret` that masks itself."""

    description = "An encrypted secret"

    def from_db_value(self, value: str | None, *args: Any) -> Secret | None:
        return None if value is None else Secret(decrypt(value) if value else "")

    def to_python(self, value: Any) -> Secret | None:
        if value is None or isinstance(value, Secret):
            return value
        return Secret(str(value))

    def get_prep_value(self, value: Any) -> str | None:
        if value is None:
            return None
        plain = value.reveal() if isinstance(value, Secret) else str(value)
        return encrypt(plain) if plain else ""

    def value_to_string(self, obj: models.Model) -> str:
        # Serialisation (dumpdata, fixtures) never exposes the plaintext.
        return ""
