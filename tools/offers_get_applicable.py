"""offers_get_applicable: running offers the customer may use, priced for an order."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from pydantic import Field

from tools.contract import CustomerToolInput, Tool, ToolOutput
from tulia.commerce.offers import OfferView, applicable_offers


class OffersGetApplicableInput(CustomerToolInput):
    order_id: int | None = Field(default=None, gt=0, description="Price offers for this order")


class OfferOut(ToolOutput):
    offer_id: int
    name: str
    description: str
    kind: str
    value: Decimal
    min_spend: Decimal
    scope: str
    code: str | None
    ends_at: datetime | None
    applicable: bool
    reason: str | None
    discount: Decimal | None


class OffersGetApplicableOutput(ToolOutput):
    offers: list[OfferOut]


def _out(view: OfferView) -> OfferOut:
    offer = view.offer
    return OfferOut(
        offer_id=offer.pk,
        name=offer.name,
        description=offer.description,
        kind=offer.kind,
        value=offer.value,
        min_spend=offer.min_spend,
        scope=offer.scope,
        code=view.code,
        ends_at=offer.ends_at,
        applicable=view.rejection is None,
        reason=view.rejection,
        discount=view.discount,
    )


def run(data: OffersGetApplicableInput) -> OffersGetApplicableOutput:
    views = applicable_offers(data.tenant_id, data.customer_id, data.order_id)
    return OffersGetApplicableOutput(offers=[_out(view) for view in views])


TOOL = Tool(
    name="offers_get_applicable",
    description=(
        "List the shop's current offers and coupon codes; with an order id, say which "
        "apply to it and how much they take off."
    ),
    input_model=OffersGetApplicableInput,
    output_model=OffersGetApplicableOutput,
    run=run,
)
