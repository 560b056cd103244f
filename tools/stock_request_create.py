"""stock_request_create: remember that the customer wants a sold-out item when it returns.

The back-in-stock nudge (tulia/campaigns/nudges.py) reads these requests; one stays
open per customer and item, so asking twice records nothing new.
"""

from __future__ import annotations

from pydantic import Field

from tools.contract import CustomerToolInput, Tool, ToolOutput
from tulia.campaigns.nudges import record_stock_request


class StockRequestCreateInput(CustomerToolInput):
    item_id: int = Field(gt=0)


class StockRequestCreateOutput(ToolOutput):
    # False: one is already open, or the item or customer is not this shop's.
    recorded: bool


def run(data: StockRequestCreateInput) -> StockRequestCreateOutput:
    recorded = record_stock_request(data.tenant_id, data.customer_id, data.item_id)
    return StockRequestCreateOutput(recorded=recorded)


TOOL = Tool(
    name="stock_request_create",
    description=(
        "Record that the customer wants to be told when a sold-out item is back in stock. "
        "Use only after they said yes to that offer."
    ),
    input_model=StockRequestCreateInput,
    output_model=StockRequestCreateOutput,
    run=run,
)
