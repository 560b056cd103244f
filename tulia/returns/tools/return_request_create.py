"""return_request_create: a return, exchange or refund request for one of the
customer's orders, decided by the shop's policy and passed to a person.

Same order and action give back the same request and ticket (tulia.returns.service),
so a retried turn or a customer asking twice opens no second case. The verdict is the
policy's; the message never promises money back.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tenants.errors import NotFound
from tools.contract import CustomerToolInput, Tool, ToolOutput
from tulia.conversations.models import Conversation
from tulia.returns import eligibility as el
from tulia.returns.service import ReturnAsk, request_return


class ReturnRequestCreateInput(CustomerToolInput):
    reference: str = Field(min_length=4, max_length=12)
    action: Literal["return", "refund", "exchange"] = "return"
    reason_text: str = Field(default="", max_length=1000)
    skus: list[str] = Field(default_factory=list, max_length=20)
    language: Literal["en", "sw", "sheng"] | None = None
    wanted: str = Field(default="", max_length=120, description="An exchange: e.g. size 43")


class VerdictOut(ToolOutput):
    eligible: bool
    manual_review: bool
    reason: str
    days_since_delivery: int | None
    window_days: int | None
    policy_version: str
    skus: list[str]


class ReturnRequestCreateOutput(ToolOutput):
    return_request_id: int
    created: bool
    verdict: VerdictOut
    ticket_id: int | None
    message: str


def run(data: ReturnRequestCreateInput) -> ReturnRequestCreateOutput:
    # The conversation must be this customer's: the request is filed on it.
    mine = Conversation.objects.filter(
        tenant_id=data.tenant_id, pk=data.conversation_id or 0, customer_id=data.customer_id
    ).exists()
    if not mine:
        raise NotFound("conversation not found")
    outcome = request_return(
        data.tenant_id,
        int(data.conversation_id or 0),
        ReturnAsk(
            order_reference=data.reference.strip().upper(),
            action=el.Action(data.action),
            reason_text=data.reason_text,
            skus=tuple(data.skus),
            request_id=data.request_id,
            language=data.language,
            wanted=data.wanted,
        ),
    )
    return ReturnRequestCreateOutput(
        return_request_id=outcome.return_request_id,
        created=outcome.created,
        verdict=VerdictOut.model_validate(outcome.verdict),
        ticket_id=outcome.ticket_id,
        message=outcome.message,
    )


TOOL = Tool(
    name="return_request_create",
    description=(
        "File a return/exchange or refund request for one of the customer's orders by "
        "reference, with the items (SKUs, all when empty) and the customer's reason. The "
        "shop's policy gives the verdict; a person confirms. Asking again returns the "
        "same request."
    ),
    input_model=ReturnRequestCreateInput,
    output_model=ReturnRequestCreateOutput,
    run=run,
)
