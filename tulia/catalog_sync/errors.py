"""What can go wrong talking to a store, and whether trying again later can help."""

from __future__ import annotations


class SyncError(Exception):
    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class BadPayload(Exception):
    """A webhook body that does not fit the platform's documented shape."""
