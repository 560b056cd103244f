"""What every journey node shares: a per-turn scratchpad over the state and the tools.

A node opens a `FlowTurn`, calls tools through it (each output is kept as a fact for
the reply guard, each failure counts towards the tool-error escalation), records the
fields it changes, and ends with `reply(...)`, which returns the partial state update.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlencode

from journeys.context import RunContext
from journeys.flows.state import FlowState
from journeys.state import NESTED, SalePart, combine, merge_part
from journeys.tooling import Called, OutT, ToolName, call
from tools.order_get_status import OrderGetStatusOutput
from tulia.text import ReplyKey, entry, label, say

# Order statuses in the words the engine's status table knows.
ORDER_STATUS_WORDS = {
    "draft": "draft",
    "pending_payment": "pending",
    "paid": "paid",
    "confirmed": "confirmed",
    "packed": "packed",
    "shipped": "shipped",
    "delivered": "delivered",
    "cancelled": "cancelled",
}


def reply_key(state: FlowState) -> ReplyKey:
    """What picks a reply's wording: the conversation and its turn number choose among
    phrasings, the shop's tone among the tone's variants (the facts are the same)."""
    return ReplyKey(
        conversation_id=state["conversation_id"],
        turn=state.get("turn_count", 0),
        tone=state.get("tone_style"),
    )


class FlowTurn:
    def __init__(self, state: FlowState, ctx: RunContext) -> None:
        self.state = state
        self.ctx = ctx
        self.updates: dict[str, Any] = {}
        self.facts: list[Any] = list(state.get("turn_facts", []))
        self.error_streak = state["escalation"]["tool_error_streak"]

    @property
    def text(self) -> str:
        return self.state.get("inbound_text", "")

    @property
    def language(self) -> str:
        return str(self.get("response_language", "en"))

    @property
    def key(self) -> ReplyKey:
        return reply_key(self.state)

    def get(self, name: str, default: Any = None) -> Any:
        if name in NESTED:  # the stored part with what this turn set in it
            return merge_part(self.state.get(name, {}), self.updates.get(name, {}))
        if name in self.updates:
            return self.updates[name]
        return self.state.get(name, default)

    @property
    def sale(self) -> SalePart:
        """The sale as this turn has left it so far (stored part and this turn's fields)."""
        return cast(SalePart, self.get("sale"))

    def set(self, **fields: Any) -> None:
        """Fields to update; a nested part's fields merge with what was set before."""
        self.updates = combine(self.updates, fields)

    def tool(
        self,
        name: ToolName[OutT],
        *,
        customer: bool = True,
        routine: bool = False,
        **arguments: Any,
    ) -> Called[OutT]:
        """Call a tool; `routine` calls (the per-turn context) do not end an error streak,
        or a journey tool failing on every turn would never reach the handoff."""
        called = call(name, self.ctx, customer=customer, **arguments)
        if called.ok:
            self.facts.append(called.output.model_dump(mode="json"))  # as JSON, stored
            self.error_streak = 0 if not routine else self.error_streak
        elif called.broken:
            self.error_streak += 1
        return called

    def say(self, scenario: str, /, **facts: object) -> str:
        return say(f"flows.{scenario}", self.language, self.key, **facts)

    def why(self, failed: Called[Any]) -> str:
        """Why a tool refused, in the customer's words: from its code and facts, never
        from its message (which is English, for logs)."""
        return refusal(failed.error_code or "other", failed.error_facts, self.language)

    def methods(self, methods: list[str]) -> str:
        """The payment methods as numbered lines the customer answers with a number."""
        names = (label("flows.method_label", m, self.language) for m in methods)
        return "\n".join(f"{i}. {name}" for i, name in enumerate(names, 1))

    def reply(self, text: str | None) -> FlowState:
        update = combine(
            self.updates,
            {
                "response_text": text,
                "turn_facts": self.facts,
                "escalation": {"tool_error_streak": self.error_streak},
            },
        )
        return cast(FlowState, update)


def refusal(code: str, facts: dict[str, Any], language: str) -> str:
    """A refusal worded from the catalog; a code (or reason) it lacks reads as "other"."""
    try:
        worded = entry(f"error.{code}", language)
        if isinstance(worded, dict):  # one code, several reasons
            return str(worded[str(facts["reason"])])
        return str(worded).format(**facts)
    except KeyError:
        return say("error.other", language)


def payment_word(status_out: OrderGetStatusOutput) -> str:
    """The payment status as the order record states it: paid, pending, or unknown."""
    if status_out.paid:
        return "paid"
    return "pending" if status_out.order.status == "pending_payment" else "unknown"


def open_order(state: FlowState) -> bool:
    """An order the customer could still pay for."""
    return bool(state.get("order_id")) and state.get("payment_status") != "paid"


def deep_link(base: str | None, query: str, filters: Mapping[str, object]) -> str | None:
    """The tenant's catalog page with the search in the URL (SPEC §5.2): the product
    words the search used, never the customer's message; none, the whole catalog."""
    if not base:
        return None
    params = {"q": query, **filters}
    params = {k: v for k, v in params.items() if v not in (None, "")}
    if not params:
        return base
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}{urlencode(params)}"


def local_phone(e164: str | None) -> str:
    """+254712345678 -> 0712 345 678, the way Kenyans write their number."""
    if not e164 or not e164.startswith("+254") or len(e164) != 13:
        return e164 or ""
    local = "0" + e164[4:]
    return f"{local[:4]} {local[4:7]} {local[7:]}"
