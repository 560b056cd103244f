"""What can go wrong talking to a store, and whether trying again later can help."""

from __future__ import annotations

from tulia.errors import DomainError


class SyncError(DomainError):
    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message, code=code, retryable=retryable)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class BadPayload(Exception):
    """A webhook body that does not fit the platform's documented shape."""
