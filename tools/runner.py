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

from tenants.context import current_tenant_id, tenant_context
from tenants.models import Tenant
from tools.contract import Tool, ToolInput, ToolResult
from tools.errors import describe_validation, error_for
from tools.models import ToolCall
from tools.registry import UnknownTool, get_tool

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
    result = _execute(tool, data)
    _record(tool.name, raw, result, started, data.tenant_id, known=True)
    return result


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
    if not Tenant.objects.filter(pk=data.tenant_id, status=Tenant.Status.ACTIVE).exists():
        return ToolResult.failure("not_found", "tenant not found")
    return None


def _execute(tool: Tool[Any, Any], data: ToolInput) -> ToolResult[Any]:
    try:
        # The context is a savepoint: a failing tool leaves no partial writes behind.
        with tenant_context(data.tenant_id):
            output = tool.run(data)
            output = tool.output_model.model_validate(output)
    except Exception as exc:
        error = error_for(tool.name, exc)
        return ToolResult.failure(error.code, error.message, retryable=error.retryable)
    return ToolResult.success(output)


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
) -> None:
    """Write the audit row after the tool's own savepoint, so its failure cannot undo it."""
    # FKs are checked at commit, so an unknown tenant is screened here, not by the insert.
    if tenant_id is None or not (known or Tenant.objects.filter(pk=tenant_id).exists()):
        logger.info("tool %s call without a known tenant not recorded", tool)
        return
    dumped = result.model_dump(mode="json")
    try:
        # tenant_context is a savepoint: a failed insert leaves the caller's transaction usable.
        with tenant_context(tenant_id) as tid:
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
