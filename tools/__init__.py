"""The tools the conversation graph and the LLM use, one module per tool.

Adding a tool:
1. a module `<owner app>/tools/<name>.py` (or `tools/<name>.py`) defining input (a
   `ToolInput` or `CustomerToolInput` subclass: strict, identity included), output (a
   `ToolOutput` subclass) and `TOOL = Tool(name, description, input_model, output_model,
   run)`; `run` executes inside the tenant's context and may raise `ToolFailure`,
   `NotFound` or a `CommerceError`, which become structured errors;
2. one line in `tools.registry.TOOL_MODULES`.

Call tools with `tools.runner.call_tool(name, payload)` (never raises, always audited in
`ToolCall`). The LLM is never handed tools: it phrases and classifies, and every business
fact it sees was fetched by a flow through a tool first.
"""
