"""Errors the tenant layer raises to its callers."""

from __future__ import annotations

from tulia.errors import DomainError


class NotFound(DomainError, LookupError):
    """Absent and not-yours look the same, so ids cannot be probed across tenants."""

    code = "not_found"

    def __init__(self, message: str = "not found") -> None:
        super().__init__(message)
