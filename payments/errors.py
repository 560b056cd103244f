"""Errors the payments layer raises: domain errors (tulia.errors), each with a code and
whether trying again can help."""

from __future__ import annotations

from tulia.errors import DomainError


class PaymentError(DomainError):
    """A refusal or failure with a stable code for tools and logs."""

    code = "payment_error"

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message, code=code, retryable=retryable)

    def __str__(self) -> str:
        # Logs and the desk read "code: message", as they did before the common base.
        return f"{self.code}: {self.message}"


class ProviderError(PaymentError):
    """The provider answered with an error, or could not be reached."""


class NotConfigured(PaymentError):
    def __init__(self, message: str) -> None:
        super().__init__("not_configured", message, retryable=False)
