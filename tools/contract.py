"""The shape every tool shares: strict typed input and output, structured errors.

Inputs are validated in pydantic's strict JSON mode: "3" is not an int, unknown keys are
refused, and identity (tenant, request, conversation) is always present.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from tulia.errors import DomainError


class ToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    tenant_id: UUID
    request_id: str = Field(min_length=1, max_length=64)
    conversation_id: int | None = None


class CustomerToolInput(ToolInput):
    """Input of tools acting for the customer in the conversation."""

    customer_id: int = Field(gt=0)


class ToolOutput(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolError(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    message: str  # for logs and staff; the customer reads the catalog's "error.<code>"
    retryable: bool = False
    facts: dict[str, str | int] = Field(default_factory=dict)


OutT = TypeVar("OutT", bound=ToolOutput)
InT = TypeVar("InT", bound=ToolInput)


class ToolResult(BaseModel, Generic[OutT]):
    """Either `output` (ok) or `error`, never both."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    output: OutT | None = None
    error: ToolError | None = None

    @property
    def error_code(self) -> str | None:
        return self.error.code if self.error else None

    def unwrap(self) -> OutT:
        """The output, or ToolFailure carrying the error (for callers that must have it)."""
        if self.output is None:
            error = self.error or ToolError(code="internal_error", message="no output")
            raise ToolFailure(error.code, error.message, retryable=error.retryable)
        return self.output

    @classmethod
    def success(cls, output: OutT) -> ToolResult[OutT]:
        return cls(ok=True, output=output)

    @classmethod
    def failure(cls, code: str, message: str, *, retryable: bool = False) -> ToolResult[Any]:
        return cls(ok=False, error=ToolError(code=code, message=message, retryable=retryable))


class ToolFailure(DomainError):
    """Raised inside a tool to return a specific structured error."""

    def __init__(
        self, code: str, message: str, *, retryable: bool = False, **facts: str | int
    ) -> None:
        super().__init__(message, code=code, retryable=retryable, **facts)


@dataclass(frozen=True)
class Tool(Generic[InT, OutT]):
    """A tool: its name, what the model is told, its schemas and its body.

    `run` executes inside the tenant's context; it may raise, the runner turns
    exceptions into ToolErrors.
    """

    name: str
    description: str
    input_model: type[InT]
    output_model: type[OutT]
    run: Callable[[InT], OutT]
