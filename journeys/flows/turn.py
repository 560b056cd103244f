"""The nodes that open and close every turn: context, language memory, reply guard.

`begin` resets what belongs to one turn; `load_context` reads the shop and the customer
through their tools (fresh every turn, so a consent withdrawn elsewhere is respected
at once); `finish` checks the reply's amounts against this turn's tool outputs
(Property 2), remembers a few transcript lines for handoff tickets, and drops the
per-turn facts so they are not stored with the state.
"""

from __future__ import annotations

from typing import Any

from journeys.context import RunContext
from journeys.flows.common import FlowTurn, reply_key
from journeys.flows.escalation import APOLOGISED
from journeys.flows.stale import session_reset
from journeys.flows.state import FlowState
from journeys.guard import guarded_reply, reply_amounts
from journeys.llm.phrasing import phrase_turn, text_node
from journeys.nlu.language import SWITCH_THRESHOLD
from journeys.nodes.deps import EngineDeps
from journeys.sanitize import sanitize_inbound
from journeys.state import combine
from journeys.templates.governance import non_text
from journeys.tooling import CUSTOMER_GET_OR_CREATE, TENANT_GET_CONTEXT
from tenants.accessors import get_tenant
from tenants.errors import NotFound
from tools.customer_get_or_create import CustomerGetOrCreateOutput
from tools.tenant_get_context import TenantGetContextOutput
from tulia import clock

TRANSCRIPT_LINES = 12
LINE_CHARS = 200


def begin(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Count the turn and clear last turn's per-turn fields; the raw text never enters
    the state, only its sanitised form."""
    update: dict[str, Any] = {
        "inbound_text": sanitize_inbound(state.get("inbound_text", "")).text,
        "turn_count": state.get("turn_count", 0) + 1,
        "llm_calls": 0,
        "message_reading": None,
        "response_text": None,
        "consent_command": None,
        "governance": {"action": None},
    }
    update.update(
        turn_facts=[],
        escalation={"category": None, "reason": None},
        last_language=state.get("last_language"),
    )
    return FlowState(**combine(update, session_reset(state, clock.now())))  # type: ignore[typeddict-item]


def _tenant_fields(out: TenantGetContextOutput) -> dict[str, Any]:
    return {
        "tenant_name": out.name,
        "bot_name": out.bot_name or None,
        "bot_intro": out.bot_intro or None,
        "tone_style": out.tone_style,
        "default_language": out.default_language,
        "allowed_languages": list(out.allowed_languages),
        "max_chattiness_level": out.max_chattiness_level,
        "catalog_link_base": out.catalog_link_base or None,
        "payments_enabled": dict.fromkeys(out.payment_methods, True),
        # The tenant's JSON settings, as JSON (the state is stored as JSON).
        **out.model_dump(mode="json", include={"handoff", "escalation_rules", "compliance"}),
    }


def _customer_fields(out: CustomerGetOrCreateOutput) -> dict[str, Any]:
    return {
        "phone_e164": out.phone_e164,
        "customer_language_pref": out.language_preference,
        "marketing_opt_in": out.marketing_opt_in,
        "notification_prefs": {"notifications": out.notifications_opt_in},
    }


def load_context(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Tenant persona and customer preferences from their tools; on failure, last turn's.

    Only the shop row's version is read here, from the accessor (cached per process,
    dropped whenever the row is saved); the settings themselves, compliance included,
    come from the persona tool, asked only when the version changed since the state's
    copy, so an unchanged shop costs no tool call (and no audit row)."""
    turn = FlowTurn(state, ctx)
    try:
        tenant = get_tenant(ctx.tenant_id)
    except NotFound:
        return turn.reply(None)  # no such shop: its tools refuse everything alike
    version = tenant.updated_at.isoformat()
    if state.get("shop_version") != version:
        shop = turn.tool(TENANT_GET_CONTEXT, customer=False, routine=True)
        if shop.ok:
            turn.set(**_tenant_fields(shop.output), shop_version=version)
    if state.get("phone_e164"):
        phone = state["phone_e164"]
        person = turn.tool(CUSTOMER_GET_OR_CREATE, customer=False, routine=True, phone=phone)
        if person.ok:
            turn.set(**_customer_fields(person.output))
    return turn.reply(None)


def keep_language(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """An unsure detection ("2", "ok") keeps the language the conversation is in.

    The engine's policy falls back to the saved preference or the tenant default; a
    Swahili conversation answering "2" should not flip to English, so the language of
    the previous reply wins when there is no saved preference.
    """
    if state.get("language_confidence", 0.0) >= SWITCH_THRESHOLD:
        return FlowState()
    if state.get("customer_language_pref"):
        return FlowState()
    last = state.get("last_language")
    if last and last in state.get("allowed_languages", []):
        return FlowState(response_language=last)
    return FlowState()


def non_text_reply(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    language = state.get("customer_language_pref") or state.get("last_language")
    language = language or state.get("default_language", "en")
    text = non_text(reply_key(state), language)
    return FlowState(response_text=text, response_language=language)


def _transcript(state: FlowState, reply: str | None) -> list[str]:
    lines = list(state["escalation"]["transcript"])
    lines.append(f"customer: {state.get('inbound_text', '')[:LINE_CHARS]}")
    if reply:
        lines.append(f"bot: {reply[:LINE_CHARS]}")
    return lines[-TRANSCRIPT_LINES:]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def grounded_facts(facts: list[Any]) -> list[Any]:
    """Tool outputs plus the amounts written inside their texts (a policy's "KES 200"
    comes from kb_retrieve just as much as a price field does)."""
    quoted = [str(amount) for text in _strings(facts) for amount in reply_amounts(text)]
    return [*facts, quoted]


def finish(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Guard the reply; in llm mode let the model reword a text node's reply (checked,
    else the template stands); name that text node on the turn's path."""
    reply = state.get("response_text")
    node, called = None, False
    if reply:
        facts = grounded_facts(state.get("turn_facts", []))
        guarded = guarded_reply(reply, facts, FlowTurn(state, ctx).say("tool_failed"))
        node = text_node(state) if guarded == reply else None  # the fallback is no node's
        phrased = phrase_turn(
            guarded, node, state=state, tenant_id=ctx.tenant_id, gateway=deps.gateway, facts=facts
        )
        reply, called = phrased.text, phrased.called
    waiting = state["sale"]["step"] == "confirm" or (
        state.get("journey_step") in ("support.offer_handoff", APOLOGISED)
    )
    update = FlowState(
        response_text=reply,
        escalation={"transcript": _transcript(state, reply)},
        turn_facts=[],
        awaiting_answer=waiting,
        last_language=state.get("response_language"),
        llm_calls=state.get("llm_calls", 0) + int(called),
    )
    if node:  # the text node that wrote the reply shows on the turn's path
        update["graph_path"] = [node]
    return update
