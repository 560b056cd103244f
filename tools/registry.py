"""The one list of tools: name -> module holding a `TOOL`. Adding a tool is one line.

Modules are imported on first use so this file never creates import cycles.
"""

from __future__ import annotations

import functools
from importlib import import_module
from typing import Any

from tools.contract import Tool

TOOL_MODULES: dict[str, str] = {
    "tenant_get_context": "tools.tenant_get_context",
    "customer_get_or_create": "tools.customer_get_or_create",
    "customer_update_preferences": "tools.customer_update_preferences",
    "catalog_search": "tools.catalog_search",
    "catalog_get_item": "tools.catalog_get_item",
    "order_create": "tools.order_create",
    "offers_get_applicable": "tools.offers_get_applicable",
    "order_apply_coupon": "tools.order_apply_coupon",
    "order_get_status": "tools.order_get_status",
    # Wave 2 (SPEC §4): orders after payment.
    "order_list_recent": "tools.order_list_recent",
    "order_cancel": "tools.order_cancel",
    "return_request_create": "tulia.returns.tools.return_request_create",
    "fulfilment_get_options": "tools.fulfilment_get_options",
    "order_set_fulfilment": "tools.order_set_fulfilment",
    "stock_request_create": "tools.stock_request_create",
    "payment_get_methods": "payments.tools.payment_get_methods",
    "payment_get_c2b_instructions": "payments.tools.payment_get_c2b_instructions",
    "payment_initiate_stk_push": "payments.tools.payment_initiate_stk_push",
    "payment_create_pesapal_checkout": "payments.tools.payment_create_pesapal_checkout",
    "kb_retrieve": "kb.tools.kb_retrieve",
    "handoff_create_ticket": "tulia.handoff.tools.handoff_create_ticket",
}


class UnknownTool(LookupError):
    pass


@functools.cache
def get_tool(name: str) -> Tool[Any, Any]:
    try:
        module = import_module(TOOL_MODULES[name])
    except KeyError as exc:
        raise UnknownTool(name) from exc
    tool: Tool[Any, Any] = module.TOOL
    if tool.name != name:
        raise UnknownTool(f"{TOOL_MODULES[name]} defines {tool.name!r}, registered as {name!r}")
    return tool


def all_tools() -> list[Tool[Any, Any]]:
    return [get_tool(name) for name in TOOL_MODULES]
