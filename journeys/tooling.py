"""The one door from the journeys to the tools (Property 13).

Tools are looked up by name in the flat registry and run through the audited runner.
Whatever happens (a tool not registered yet, a refusal, a provider error, even an
exception escaping the runner) comes back as a `Called` value the flows can branch on,
never as an exception that would end the turn without a reply.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from journeys.context import RunContext
from tools.runner import call_tool

logger = logging.getLogger("tulia.journeys")

# Errors that say "this cannot work" rather than "our side is broken": they do not count
# towards the two-consecutive-tool-errors escalation.
EXPECTED_ERRORS = frozenset(
    {
        "not_found",
        "invalid_input",
        "coupon_rejected",
        "out_of_stock",
        "invalid_order_line",
        "unknown_delivery_area",
        "order_not_cancellable",
    }
)


@dataclass(frozen=True, slots=True)
class Called:
    tool: str
    ok: bool
    output: dict[str, Any] = field(default_factory=dict)
    error_code: str | None = None
    error_message: str = ""
    error_facts: dict[str, Any] = field(default_factory=dict)

    @property
    def broken(self) -> bool:
        """A failure of ours (tool missing, provider down, bug), not the customer's input."""
        return not self.ok and self.error_code not in EXPECTED_ERRORS


def identity(ctx: RunContext, *, with_customer: bool) -> dict[str, Any]:
    """Identity comes from the run context, never from what the customer typed."""
    found: dict[str, Any] = {
        "tenant_id": ctx.tenant_id,
        "request_id": ctx.request_id[:64],
        "conversation_id": int(ctx.conversation_id),
    }
    if with_customer:
        found["customer_id"] = int(ctx.customer_id)
    return found


def call(name: str, ctx: RunContext, *, customer: bool = True, **arguments: Any) -> Called:
    # Identity goes last: an argument can never stand in for the run context's tenant.
    payload = {**arguments, **identity(ctx, with_customer=customer)}
    try:
        result = call_tool(name, payload)
    except Exception:  # the runner promises not to raise; a turn must survive if it does
        logger.exception("tool %s raised (request_id=%s)", name, ctx.request_id)
        return Called(name, ok=False, error_code="internal_error", error_message="tool crashed")
    if result.ok and result.output is not None:
        return Called(name, ok=True, output=result.output.model_dump(mode="json"))
    error = result.error
    code = error.code if error else "internal_error"
    if code not in EXPECTED_ERRORS:
        logger.warning("tool %s failed: %s (request_id=%s)", name, code, ctx.request_id)
    return Called(
        name,
        ok=False,
        error_code=code,
        error_message=error.message if error else "",
        error_facts=dict(error.facts) if error else {},
    )
