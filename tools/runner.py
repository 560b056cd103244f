"""call_tool: validate, check the tenant, run in its context, never raise, record the call."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import DatabaseError
from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from tenants.accessors import get_tenant, tenant_scope
from tenants.context import current_tenant_id, tenant_context
from tenants.errors import NotFound
from tenants.models import Tenant
from tools.contract import Tool, ToolInput, ToolResult
from tools.errors import describe_validation, error_for
from tools.models import ToolCall
from tools.registry import UnknownTool, get_tool
from tulia.observability import metrics

logger = logging.getLogger("tulia.tools")


def call_tool(name: str, payload: Mapping[str, Any] | ToolInput) -> ToolResult[Any]:
    """Run tool `name` with `payload`; failures come back as `ToolResult.error`."""
    started = time.perf_counter()
    raw = _as_json_dict(payload)
    try:
        tool = get_tool(name)
    except UnknownTool:
        return ToolResult.failure("unknown_tool", f"no tool named {name!r}")
    try:
        data = tool.input_model.model_validate_json(json.dumps(raw))
    except ValidationError as exc:
        result = ToolResult.failure("invalid_input", describe_validation(exc))
        _record(tool.name, raw, result, started, _tenant_for_audit(raw))
        return result
    refusal = _refusal(data)
    if refusal is not None:
        _record(tool.name, raw, refusal, started, current_tenant_id())
        return refusal
    return _execute(tool, data, raw, started)


def _as_json_dict(payload: Mapping[str, Any] | ToolInput) -> dict[str, Any]:
    """Plain JSON values (models, UUIDs, Decimals inside are converted) for strict parsing."""
    if isinstance(payload, BaseModel):
        return payload.model_dump(mode="json")
    converted: dict[str, Any] = to_jsonable_python(dict(payload), fallback=str)
    return converted


def _refusal(data: ToolInput) -> ToolResult[Any] | None:
    active = current_tenant_id()
    if active is not None and active != data.tenant_id:
        logger.warning("tool call for tenant %s refused inside %s", data.tenant_id, active)
        return ToolResult.failure("tenant_mismatch", "tenant_id is not the current tenant")
    if not _active(data.tenant_id):
        return ToolResult.failure("not_found", "tenant not found")
    return None


def _active(tenant_id: UUID) -> bool:
    # Through the accessor's short-lived cache: a turn's tools ask this several times.
    try:
        return get_tenant(tenant_id).status == Tenant.Status.ACTIVE
    except NotFound:
        return False


def _execute(
    tool: Tool[Any, Any], data: ToolInput, raw: Mapping[str, Any], started: float
) -> ToolResult[Any]:
    try:
        # The context is a savepoint: a failing tool leaves no partial writes behind.
        with tenant_context(data.tenant_id):
            output = tool.output_model.model_validate(tool.run(data))
            result: ToolResult[Any] = ToolResult.success(output)
            # A success is recorded in the tool's own transaction: one tenant context
            # (and commit) per call instead of two.
            _record(tool.name, raw, result, started, data.tenant_id, known=True, joined=True)
    except Exception as exc:
        error = error_for(tool.name, exc)
        result = ToolResult.failure(error.code, error.message, retryable=error.retryable)
        _record(tool.name, raw, result, started, data.tenant_id, known=True)
    return result


def _tenant_for_audit(raw: Mapping[str, Any]) -> UUID | None:
    active = current_tenant_id()
    if active is not None:
        return active
    try:
        return UUID(str(raw.get("tenant_id")))
    except ValueError:
        return None


def _record(
    tool: str,
    raw: Mapping[str, Any],
    result: ToolResult[Any],
    started: float,
    tenant_id: UUID | None,
    *,
    known: bool = False,
    joined: bool = False,
) -> None:
    """Write the audit row. A failure is written after the tool's savepoint rolled back,
    so it cannot be undone with it; `joined` writes inside the caller's open context."""
    metrics.TOOL_CALLS.labels(tool=tool, outcome=_outcome(result)).inc()
    metrics.TOOL_SECONDS.labels(tool=tool).observe(time.perf_counter() - started)
    # FKs are checked at commit, so an unknown tenant is screened here, not by the insert.
    if tenant_id is None or not (known or Tenant.objects.filter(pk=tenant_id).exists()):
        logger.info("tool %s call without a known tenant not recorded", tool)
        return
    dumped = result.model_dump(mode="json")
    try:
        # tenant_context is a savepoint: a failed insert leaves the caller's transaction usable.
        with tenant_scope(tenant_id) if joined else tenant_context(tenant_id) as tid:
            ToolCall.objects.create(
                tenant_id=tid,
                tool=tool,
                request_id=str(raw.get("request_id") or "")[:64],
                conversation_id=_int_or_none(raw.get("conversation_id")),
                inputs=_storable(raw),
                outputs=_storable(dumped),
                outcome=_outcome(result),
                error_code=result.error.code if result.error else "",
                duration_ms=int((time.perf_counter() - started) * 1000),
            )
    except DatabaseError:
        if joined:
            raise  # the tool's transaction is unusable: it rolls back and the failure is recorded
        # A broken connection must not turn into a raise.
        logger.exception("could not record tool call %s", tool)


def _storable(value: Mapping[str, Any]) -> Any:
    """JSON that PostgreSQL's jsonb accepts: it refuses the NUL character."""
    return json.loads(json.dumps(value, default=str).replace("\\u0000", ""))


def _outcome(result: ToolResult[Any]) -> str:
    if result.ok:
        return ToolCall.Outcome.OK
    refused = result.error is not None and result.error.code in {"invalid_input", "tenant_mismatch"}
    return ToolCall.Outcome.REFUSED if refused else ToolCall.Outcome.ERROR


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
