"""Turning whatever a tool raised into a ToolError the graph can act on."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from pydantic import ValidationError

from tenants.context import TenantContextError
from tools.contract import ToolError
from tulia.errors import DomainError

logger = logging.getLogger("tulia.tools")


def describe_validation(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in err['loc']) or 'input'}: {err['msg']}"
        for err in exc.errors()[:5]
    )


def _known(exc: BaseException) -> ToolError | None:
    if isinstance(exc, DomainError):  # commerce, handoff, tenancy lookups, ToolFailure
        return ToolError(
            code=exc.code, message=exc.message, retryable=exc.retryable, facts=exc.facts
        )
    if isinstance(exc, DjangoValidationError):
        return ToolError(code="invalid_input", message="; ".join(exc.messages))
    if isinstance(exc, TenantContextError):
        return ToolError(code="forbidden", message=str(exc))
    return None


def error_for(tool: str, exc: BaseException) -> ToolError:
    """Known failures keep their meaning; anything else is an internal error, logged."""
    known = _known(exc)
    if known is not None:
        return known
    if isinstance(exc, OperationalError | InterfaceError):
        logger.warning("tool %s: database unavailable: %s", tool, exc)
        return ToolError(code="unavailable", message="temporarily unavailable", retryable=True)
    logger.exception("tool %s failed", tool, exc_info=exc)
    return ToolError(code="internal_error", message="the tool failed unexpectedly")
