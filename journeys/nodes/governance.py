"""Governance nodes: consent first, then intent, language and the governor.

Each JSON node runs its trained classifier (calibrated: the confidence is the chance the
answer is right). When that is below the node's SPEC threshold and an LLM is configured,
the node asks for the turn's one LLM reading of the message, which answers intent,
language and governor together: the first unsure node makes the call, a later unsure
node of the same turn reads the stored answer (`message_reading`), so a turn costs at
most one classification call, not three. A failed call leaves every node with its own
answer. LLM calls are added to `state["llm_calls"]` so the turn can report them.
"""

from __future__ import annotations

from journeys.context import RunContext
from journeys.llm import prompts
from journeys.llm.schemas import MessageReading
from journeys.nlu.consent import detect_consent_command
from journeys.nlu.governor import (
    GovernorCounters,
    GovernorResult,
    classify_governor,
    govern,
    intent_given_governor,
)
from journeys.nlu.intent import IntentResult, classify_intent
from journeys.nlu.language import (
    SWITCH_THRESHOLD,
    LanguageResult,
    choose_response_language,
    detect_language,
)
from journeys.nodes.deps import EngineDeps
from journeys.nodes.routing import INTENT_ROUTE_THRESHOLD
from journeys.nodes.turn import reply_key
from journeys.state import ConversationState
from journeys.templates.governance import consent_confirmed

GOVERNOR_THRESHOLD = 0.70
READING_NODE = "message_reading"


def _reading(
    state: ConversationState, deps: EngineDeps, *, sure: bool
) -> tuple[MessageReading | None, ConversationState]:
    """The turn's LLM reading, if this node needs one: (reading or None, state update).

    Asked only when the node is unsure (or the LLM mode always asks) and an LLM is
    configured; asked at most once per turn: a stored reading, or a stored failure ({}),
    answers every later node without another call.
    """
    gateway = deps.gateway
    if gateway is None or not gateway.settings.enabled:
        return None, ConversationState()
    if sure and not gateway.settings.always_asks:
        return None, ConversationState()
    stored = state.get("message_reading")
    if stored is not None:
        return (MessageReading.model_validate(stored) if stored else None), ConversationState()
    attempt = gateway.structured(
        READING_NODE, MessageReading, prompts.MESSAGE_READING, state["inbound_text"]
    )
    found = attempt.value
    return found, ConversationState(
        message_reading=found.model_dump() if found is not None else {},
        llm_calls=state.get("llm_calls", 0) + int(attempt.called),
    )


def _reply_language(state: ConversationState, detected: LanguageResult) -> str:
    return choose_response_language(
        detected,
        allowed=state.get("allowed_languages", []),
        customer_pref=state.get("customer_language_pref"),
        tenant_default=state.get("default_language", "en"),
    ).language


def consent_check(state: ConversationState, ctx: RunContext, deps: EngineDeps) -> ConversationState:
    """STOP-style commands act before any classifier; no LLM is ever asked about them."""
    extra = state.get("compliance", {}).get("opt_out_keywords", [])
    awaiting = state.get("awaiting_answer", False)
    command = detect_consent_command(state["inbound_text"], extra, awaiting_answer=awaiting)
    if command is None:
        return ConversationState(consent_command=None)
    language = _reply_language(state, detect_language(state["inbound_text"]))
    reply = consent_confirmed(
        reply_key(state), language, kind=command.kind, shop=state.get("tenant_name")
    )
    return ConversationState(
        consent_command=command.kind,
        marketing_opt_in=command.kind == "opt_in",
        intent="preferences_consent",
        intent_confidence=1.0,
        journey="prefs",
        response_language=language,  # type: ignore[typeddict-item]
        response_text=reply,
    )


def intent_classify(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    found = classify_intent(state["inbound_text"])
    reading, asked = _reading(state, deps, sure=found.confidence >= INTENT_ROUTE_THRESHOLD)
    if reading is not None:
        found = IntentResult(reading.intent, reading.intent_confidence, {})
    return ConversationState(intent=found.intent, intent_confidence=found.confidence, **asked)


def language_policy(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    found = detect_language(state["inbound_text"])
    reading, asked = _reading(state, deps, sure=found.confidence >= SWITCH_THRESHOLD)
    if reading is not None:
        found = LanguageResult(reading.language, reading.language_confidence)
    return ConversationState(
        detected_language=found.language,
        language_confidence=found.confidence,
        response_language=_reply_language(state, found),  # type: ignore[typeddict-item]
        **asked,
    )


def governor_spam_casual(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    intent = IntentResult(state.get("intent", "unknown"), state.get("intent_confidence", 0.0), {})
    found = classify_governor(state["inbound_text"], intent)
    reading, asked = _reading(state, deps, sure=found.confidence >= GOVERNOR_THRESHOLD)
    if reading is not None:
        found = GovernorResult(reading.classification, reading.governor_confidence, "llm")
    level = state.get("max_chattiness_level", 2)
    decision = govern(found.classification, GovernorCounters.from_state(state), level)
    return ConversationState(
        intent=intent_given_governor(intent.intent, found.classification),  # type: ignore[typeddict-item]
        governor_classification=found.classification,
        governor_confidence=found.confidence,
        governor_action=decision.action,
        casual_turns=decision.counters.casual_turns,
        spam_turns=decision.counters.spam_turns,
        abuse_turns=decision.counters.abuse_turns,
        **asked,
    )
