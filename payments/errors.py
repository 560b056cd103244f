"""Errors the payments layer raises; each says whether trying again can help."""

from __future__ import annotations


class PaymentError(Exception):
    """A refusal or failure with a stable code for tools and logs."""

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retryable = retryable


class ProviderError(PaymentError):
    """The provider answered with an error, or could not be reached."""


class NotConfigured(PaymentError):
    def __init__(self, message: str) -> None:
        super().__init__("not_configured", message, retryable=False)
