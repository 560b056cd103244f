"""The one door from the journeys to the tools (Property 13).

Tools are looked up by name in the flat registry and run through the audited runner.
Whatever happens (a tool not registered yet, a refusal, a provider error, even an
exception escaping the runner) comes back as a `Called` value the flows can branch on,
never as an exception that would end the turn without a reply. A tool is named by its
`ToolName`, typed by the tool's output model, so `Called.output` is that pydantic model
and mypy checks every field a flow reads.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from journeys.context import RunContext
from tools.contract import ToolOutput
from tools.runner import call_tool

if TYPE_CHECKING:  # the output models, for mypy only: tools are imported on first use
    from kb.tools.kb_retrieve import KbRetrieveOutput
    from payments.tools.payment_create_pesapal_checkout import (
        PaymentCreatePesapalCheckoutOutput,
    )
    from payments.tools.payment_get_c2b_instructions import PaymentGetC2BInstructionsOutput
    from payments.tools.payment_get_methods import PaymentGetMethodsOutput
    from payments.tools.payment_initiate_stk_push import PaymentInitiateStkPushOutput
    from tools.catalog_get_item import CatalogGetItemOutput
    from tools.catalog_search import CatalogSearchOutput
    from tools.customer_get_or_create import CustomerGetOrCreateOutput
    from tools.customer_update_preferences import CustomerUpdatePreferencesOutput
    from tools.fulfilment_get_options import FulfilmentGetOptionsOutput
    from tools.offers_get_applicable import OffersGetApplicableOutput
    from tools.order_cancel import OrderCancelOutput
    from tools.order_get_status import OrderGetStatusOutput
    from tools.order_list_recent import OrderListRecentOutput
    from tools.schemas import OrderOut
    from tools.stock_request_create import StockRequestCreateOutput
    from tools.tenant_get_context import TenantGetContextOutput
    from tulia.handoff.tools.handoff_create_ticket import HandoffCreateTicketOutput
    from tulia.returns.tools.return_request_create import ReturnRequestCreateOutput

OutT = TypeVar("OutT", bound=ToolOutput)

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
class ToolName(Generic[OutT]):
    """A registered tool's name (tools.registry), typed by the tool's output model."""

    name: str


# Every tool the journeys call; tests/engine/test_tooling.py checks each annotation
# against the registered tool's output model.
TENANT_GET_CONTEXT: ToolName[TenantGetContextOutput] = ToolName("tenant_get_context")
CUSTOMER_GET_OR_CREATE: ToolName[CustomerGetOrCreateOutput] = ToolName("customer_get_or_create")
CUSTOMER_UPDATE_PREFERENCES: ToolName[CustomerUpdatePreferencesOutput] = ToolName(
    "customer_update_preferences"
)
CATALOG_SEARCH: ToolName[CatalogSearchOutput] = ToolName("catalog_search")
CATALOG_GET_ITEM: ToolName[CatalogGetItemOutput] = ToolName("catalog_get_item")
ORDER_CREATE: ToolName[OrderOut] = ToolName("order_create")
OFFERS_GET_APPLICABLE: ToolName[OffersGetApplicableOutput] = ToolName("offers_get_applicable")
ORDER_APPLY_COUPON: ToolName[OrderOut] = ToolName("order_apply_coupon")
ORDER_GET_STATUS: ToolName[OrderGetStatusOutput] = ToolName("order_get_status")
ORDER_LIST_RECENT: ToolName[OrderListRecentOutput] = ToolName("order_list_recent")
ORDER_CANCEL: ToolName[OrderCancelOutput] = ToolName("order_cancel")
RETURN_REQUEST_CREATE: ToolName[ReturnRequestCreateOutput] = ToolName("return_request_create")
FULFILMENT_GET_OPTIONS: ToolName[FulfilmentGetOptionsOutput] = ToolName("fulfilment_get_options")
ORDER_SET_FULFILMENT: ToolName[OrderOut] = ToolName("order_set_fulfilment")
STOCK_REQUEST_CREATE: ToolName[StockRequestCreateOutput] = ToolName("stock_request_create")
PAYMENT_GET_METHODS: ToolName[PaymentGetMethodsOutput] = ToolName("payment_get_methods")
PAYMENT_GET_C2B_INSTRUCTIONS: ToolName[PaymentGetC2BInstructionsOutput] = ToolName(
    "payment_get_c2b_instructions"
)
PAYMENT_INITIATE_STK_PUSH: ToolName[PaymentInitiateStkPushOutput] = ToolName(
    "payment_initiate_stk_push"
)
PAYMENT_CREATE_PESAPAL_CHECKOUT: ToolName[PaymentCreatePesapalCheckoutOutput] = ToolName(
    "payment_create_pesapal_checkout"
)
KB_RETRIEVE: ToolName[KbRetrieveOutput] = ToolName("kb_retrieve")
HANDOFF_CREATE_TICKET: ToolName[HandoffCreateTicketOutput] = ToolName("handoff_create_ticket")


@dataclass(frozen=True, slots=True)
class Called(Generic[OutT]):
    """A tool call's outcome: the typed output when `ok`, else the error's code and facts."""

    tool: str
    ok: bool
    result: OutT | None = None
    error_code: str | None = None
    error_message: str = ""
    error_facts: dict[str, Any] = field(default_factory=dict)

    @property
    def output(self) -> OutT:
        """The tool's output; read it only after `ok` (a failed call has none)."""
        if self.result is None:
            raise LookupError(f"{self.tool} failed ({self.error_code}): no output")
        return self.result

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


def call(
    tool: ToolName[OutT], ctx: RunContext, *, customer: bool = True, **arguments: Any
) -> Called[OutT]:
    name = tool.name
    # Identity goes last: an argument can never stand in for the run context's tenant.
    payload = {**arguments, **identity(ctx, with_customer=customer)}
    try:
        result = call_tool(name, payload)
    except Exception:  # the runner promises not to raise; a turn must survive if it does
        logger.exception("tool %s raised (request_id=%s)", name, ctx.request_id)
        return Called(name, ok=False, error_code="internal_error", error_message="tool crashed")
    if result.ok and result.output is not None:
        return Called(name, ok=True, result=result.output)
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
