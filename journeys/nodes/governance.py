"""Governance nodes: consent first, then intent, language and the governor.

Each JSON node runs its deterministic classifier and, when that is unsure and an LLM
is configured, asks the LLM through the cascade. LLM calls are added to
`state["llm_calls"]` so the turn can report them.
"""

from __future__ import annotations

from journeys.context import RunContext
from journeys.llm import prompts
from journeys.llm.cascade import NodeSpec, run_cascade
from journeys.llm.schemas import GovernorOutput, IntentOutput, LanguageOutput
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
INTENT_SPEC = NodeSpec(
    "intent_classify", IntentOutput, prompts.INTENT_CLASSIFY, INTENT_ROUTE_THRESHOLD
)
LANGUAGE_SPEC = NodeSpec(
    "language_policy", LanguageOutput, prompts.LANGUAGE_POLICY, SWITCH_THRESHOLD
)
GOVERNOR_SPEC = NodeSpec(
    "governor_spam_casual", GovernorOutput, prompts.GOVERNOR, GOVERNOR_THRESHOLD
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
    text = state["inbound_text"]
    found = classify_intent(text)
    result = run_cascade(
        INTENT_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=deps.gateway,
        adopt=lambda out: IntentResult(out.intent, out.confidence, {}),
    )
    return ConversationState(
        intent=result.value.intent,
        intent_confidence=result.value.confidence,
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )


def language_policy(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    text = state["inbound_text"]
    found = detect_language(text)
    result = run_cascade(
        LANGUAGE_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=deps.gateway,
        adopt=lambda out: LanguageResult(out.language, out.confidence),
    )
    return ConversationState(
        detected_language=result.value.language,
        language_confidence=result.value.confidence,
        response_language=_reply_language(state, result.value),  # type: ignore[typeddict-item]
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )


def governor_spam_casual(
    state: ConversationState, ctx: RunContext, deps: EngineDeps
) -> ConversationState:
    text = state["inbound_text"]
    intent = IntentResult(state.get("intent", "unknown"), state.get("intent_confidence", 0.0), {})
    found = classify_governor(text, intent)
    result = run_cascade(
        GOVERNOR_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=deps.gateway,
        adopt=lambda out: GovernorResult(out.classification, out.confidence, "llm"),
    )
    level = state.get("max_chattiness_level", 2)
    decision = govern(result.value.classification, GovernorCounters.from_state(state), level)
    return ConversationState(
        intent=intent_given_governor(intent.intent, result.value.classification),  # type: ignore[typeddict-item]
        governor_classification=result.value.classification,
        governor_confidence=result.value.confidence,
        governor_action=decision.action,
        casual_turns=decision.counters.casual_turns,
        spam_turns=decision.counters.spam_turns,
        abuse_turns=decision.counters.abuse_turns,
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )
