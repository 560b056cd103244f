"""The tools as LangChain StructuredTools, with identity taken from the run context.

The model sees only business arguments. Tenant, request, conversation and customer
come from `RunContext`, which the graph builds from the inbound message (STYLE 3); a
model that tries to pass them anyway is refused by the strict input schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, create_model

from tools.contract import IDENTITY_FIELDS, Tool
from tools.registry import TOOL_MODULES, get_tool
from tools.runner import call_tool


@dataclass(frozen=True)
class RunContext:
    tenant_id: UUID
    request_id: str
    conversation_id: int | None = None
    customer_id: int | None = None

    def identity_for(self, tool: Tool[Any, Any]) -> dict[str, Any]:
        fields = tool.input_model.model_fields
        identity = {
            "tenant_id": str(self.tenant_id),
            "request_id": self.request_id,
            "conversation_id": self.conversation_id,
            "customer_id": self.customer_id,
        }
        return {key: value for key, value in identity.items() if key in fields}


def model_visible_schema(tool: Tool[Any, Any]) -> type[BaseModel]:
    """The tool's input model minus identity fields: what the LLM may fill in."""
    business = {
        name: (field.annotation, field)
        for name, field in tool.input_model.model_fields.items()
        if name not in IDENTITY_FIELDS
    }
    return create_model(  # type: ignore[call-overload]
        f"{_camel(tool.name)}Args",
        __config__=ConfigDict(extra="forbid"),
        __doc__=tool.description,
        **business,
    )


def as_structured_tool(tool: Tool[Any, Any], context: RunContext) -> StructuredTool:
    def invoke(**arguments: Any) -> dict[str, Any]:
        # Identity is merged last so the model can never override it.
        payload = {**arguments, **context.identity_for(tool)}
        return call_tool(tool.name, payload).model_dump(mode="json")

    return StructuredTool.from_function(
        func=invoke,
        name=tool.name,
        description=tool.description,
        args_schema=model_visible_schema(tool),
        infer_schema=False,
    )


def langchain_tools(
    context: RunContext, names: Iterable[str] | None = None
) -> list[StructuredTool]:
    """Build the tools for one run (cheap: per message, bound to its identity)."""
    return [as_structured_tool(get_tool(name), context) for name in names or TOOL_MODULES]


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
