"""Reply nodes of the governance layer: casual/redirect/spam, clarify and unknown."""

from __future__ import annotations

from journeys.context import RunContext
from journeys.flows.common import reply_key
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.templates import governance as templates


def governance_response(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Reply for a non-business turn; spam past its limit and abuse get no reply at all."""
    key, language = reply_key(state), state.get("response_language", "en")
    action = state["governance"]["action"]
    if action == "casual_reply":
        if state.get("casual_turns", 0) > 1:
            return FlowState(response_text=templates.casual_reply(key, language))
        short = state.get("max_chattiness_level", 2) <= 1
        text = templates.greeting(
            key,
            language,
            shop=state.get("tenant_name"),
            bot_name=state.get("bot_name"),
            short=short,
            intro=state.get("bot_intro"),
        )
        return FlowState(response_text=text)
    if action == "redirect":
        return FlowState(response_text=templates.redirect(key, language))
    if action == "spam_reply":
        shop = state.get("tenant_name")
        return FlowState(response_text=templates.spam_reply(key, language, shop=shop))
    return FlowState(response_text=None)


def clarify_response(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    guess = state.get("intent", "unknown")
    text = templates.clarify_intent(
        reply_key(state), state.get("response_language", "en"), guess=guess
    )
    return FlowState(journey="unknown", response_text=text)


def unknown_response(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = templates.unknown(reply_key(state), state.get("response_language", "en"))
    return FlowState(journey="unknown", response_text=text)
