"""Reply nodes of the governance layer: casual/redirect/spam, clarify and unknown."""

from __future__ import annotations

from journeys.context import RunContext
from journeys.nodes.deps import EngineDeps
from journeys.nodes.turn import reply_key
from journeys.state import ConversationState
from journeys.templates import governance as templates


def governance_response(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    """Reply for a non-business turn; spam past its limit and abuse get no reply at all."""
    key, language = reply_key(state), state.get("response_language", "en")
    action = state.get("governor_action")
    if action == "casual_reply":
        if state.get("casual_turns", 0) > 1:
            return ConversationState(response_text=templates.casual_reply(key, language))
        short = state.get("max_chattiness_level", 2) <= 1
        text = templates.greeting(
            key,
            language,
            shop=state.get("tenant_name"),
            bot_name=state.get("bot_name"),
            short=short,
            tone=state.get("tone_style"),
            intro=state.get("bot_intro"),
        )
        return ConversationState(response_text=text)
    if action == "redirect":
        return ConversationState(response_text=templates.redirect(key, language))
    if action == "spam_reply":
        shop = state.get("tenant_name")
        return ConversationState(response_text=templates.spam_reply(key, language, shop=shop))
    return ConversationState(response_text=None)


def clarify_response(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    guess = state.get("intent", "unknown")
    text = templates.clarify_intent(
        reply_key(state), state.get("response_language", "en"), guess=guess
    )
    return ConversationState(journey="unknown", response_text=text)


def unknown_response(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    text = templates.unknown(reply_key(state), state.get("response_language", "en"))
    return ConversationState(journey="unknown", response_text=text)
