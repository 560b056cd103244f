"""fulfilment_get_options: how this shop hands goods over (delivery zones, pickup)."""

from __future__ import annotations

from decimal import Decimal

from tools.contract import Tool, ToolInput, ToolOutput
from tulia.commerce.fulfilment import options_for


class FulfilmentGetOptionsInput(ToolInput):
    pass


class ZoneOut(ToolOutput):
    name: str
    fee: Decimal
    areas: list[str]
    courier: bool


class FulfilmentGetOptionsOutput(ToolOutput):
    offered: bool
    zones: list[ZoneOut]
    free_delivery_from: Decimal | None
    pickup_location: str | None
    pickup_hours: str | None


def run(data: FulfilmentGetOptionsInput) -> FulfilmentGetOptionsOutput:
    options = options_for(data.tenant_id)
    return FulfilmentGetOptionsOutput(
        offered=options.offered,
        zones=[
            ZoneOut(name=z.name, fee=z.fee, areas=list(z.areas), courier=z.courier)
            for z in options.zones
        ],
        free_delivery_from=options.free_delivery_from,
        pickup_location=options.pickup_location or None,
        pickup_hours=options.pickup_hours or None,
    )


TOOL = Tool(
    name="fulfilment_get_options",
    description="The shop's delivery zones with their fees, and its pickup location and hours.",
    input_model=FulfilmentGetOptionsInput,
    output_model=FulfilmentGetOptionsOutput,
    run=run,
)
