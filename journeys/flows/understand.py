"""The governance nodes: consent first, then intent, language and the governor; the
LLM is not asked where its answer cannot change the turn.

Each classifier runs its deterministic model and, when that is unsure and an LLM is
configured, asks the LLM through the cascade (LLM calls are added to
`state["llm_calls"]` so the turn can report them).

A reply to the question the sale is waiting on ("2", "mpesa", "sawa", "ya kwanza") goes
to the sales journey whatever its intent (router.after_governance), and a one- or
two-word reply keeps the conversation's language when the detection is unsure
(turn.keep_language). Asking a model about those only adds latency and cost, so those
turns run the deterministic classifiers alone (bench/turns.py: most cascade calls were
of this kind).

Two fixed meanings are settled here rather than by the trained models: "see all" is the
catalog whatever a model makes of it (SPEC §5.2, router.wants_catalog), so it is
business, never small talk; and the answer to the sale's pending question keeps the
conversation's language: "ya kwanza" or "kadi" is as much Sheng as Swahili (the model
may be right that the words are Swahili; they are still no ground to switch).
"""

from __future__ import annotations

from typing import Any, cast

from journeys.context import RunContext
from journeys.flows import lexicon, order_actions, parse
from journeys.flows.checkout import names_paying_phone
from journeys.flows.common import reply_key
from journeys.flows.sales import answers_step, picks_by_code
from journeys.flows.state import FlowState
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
from journeys.nodes.routing import GOVERNOR_THRESHOLD, INTENT_ROUTE_THRESHOLD
from journeys.templates.governance import consent_confirmed

SHORT_REPLY_WORDS = 2
INTENT_SPEC = NodeSpec(
    "intent_classify", IntentOutput, prompts.INTENT_CLASSIFY, INTENT_ROUTE_THRESHOLD
)
LANGUAGE_SPEC = NodeSpec(
    "language_policy", LanguageOutput, prompts.LANGUAGE_POLICY, SWITCH_THRESHOLD
)
GOVERNOR_SPEC = NodeSpec(
    "governor_spam_casual", GovernorOutput, prompts.GOVERNOR, GOVERNOR_THRESHOLD
)


def _update(**fields: Any) -> FlowState:
    return cast(FlowState, fields)


def _reply_language(state: FlowState, detected: LanguageResult) -> str:
    return choose_response_language(
        detected,
        allowed=state.get("allowed_languages", []),
        customer_pref=state.get("customer_language_pref"),
        tenant_default=state.get("default_language", "en"),
    ).language


def consent_check(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """STOP-style commands act before any classifier; no LLM is ever asked about them."""
    extra = state.get("compliance", {}).get("opt_out_keywords", [])
    awaiting = state.get("awaiting_answer", False)
    command = detect_consent_command(state["inbound_text"], extra, awaiting_answer=awaiting)
    if command is None:
        return _update(consent_command=None)
    language = _reply_language(state, detect_language(state["inbound_text"]))
    reply = consent_confirmed(
        reply_key(state), language, kind=command.kind, shop=state.get("tenant_name")
    )
    return _update(
        consent_command=command.kind,
        marketing_opt_in=command.kind == "opt_in",
        intent="preferences_consent",
        intent_confidence=1.0,
        journey="prefs",
        response_language=language,
        response_text=reply,
    )


def intent_classify(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = state["inbound_text"]
    found = classify_intent(text)
    result = run_cascade(
        INTENT_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=None if answers_step(state) else deps.gateway,
        adopt=lambda out: IntentResult(out.intent, out.confidence, {}),
    )
    return _update(
        intent=result.value.intent,
        intent_confidence=result.value.confidence,
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )


def language_policy(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = state["inbound_text"]
    last = state.get("last_language")
    short = len(parse.words(text)) <= SHORT_REPLY_WORDS
    found = detect_language(text)
    result = run_cascade(
        LANGUAGE_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=None if short and last else deps.gateway,
        adopt=lambda out: LanguageResult(out.language, out.confidence),
    )
    language = _reply_language(state, result.value)
    # The answer to the question the sale is waiting on ("ya kwanza", "kadi"): the
    # customer's register does not show in it (a lone word is already read so by
    # detect_language).
    keeps = answers_step(state) and last in state.get("allowed_languages", [])
    if keeps and not state.get("customer_language_pref"):
        language = str(last)
    return _update(
        detected_language=result.value.language,
        language_confidence=result.value.confidence,
        response_language=language,
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )


def governor_spam_casual(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = state["inbound_text"]
    answering = _answers_pending(state)
    intent = IntentResult(state.get("intent", "unknown"), state.get("intent_confidence", 0.0), {})
    found = classify_governor(text, intent)
    result = run_cascade(
        GOVERNOR_SPEC,
        text=text,
        deterministic=found,
        confidence=found.confidence,
        gateway=None if answering else deps.gateway,
        adopt=lambda out: GovernorResult(out.classification, out.confidence, "llm"),
    )
    verdict = result.value.classification
    level = state.get("max_chattiness_level", 2)
    decision = govern(verdict, GovernorCounters.from_state(state), level)
    update = _update(
        intent=intent_given_governor(intent.intent, verdict),
        governor_classification=verdict,
        governor_confidence=result.value.confidence,
        governor_action=decision.action,
        casual_turns=decision.counters.casual_turns,
        spam_turns=decision.counters.spam_turns,
        abuse_turns=decision.counters.abuse_turns,
        llm_calls=state.get("llm_calls", 0) + int(result.llm_called),
    )
    overruled = ("casual", "spam") if _structured_answer(state) else ("casual",)
    if answering and verdict in overruled:
        # "moja", "sawa" or "poa" right after the bot asked how many or whether to go on
        # is the answer, not small talk: it must neither be answered with a greeting nor
        # use up the customer's casual allowance. A phone number for the M-Pesa prompt or
        # a shop-page code is an answer even when it looks like spam. Abuse still wins.
        update["governor_classification"] = "business"
        update["governor_action"] = "proceed"
        update["casual_turns"] = state.get("casual_turns", 0)
    return update


def _answers_pending(state: FlowState) -> bool:
    """This message answers the question the bot is waiting on (the sale's step, a
    return or cancellation's order or reason), picks from the shop page or asks for
    the whole catalog."""
    text = state.get("inbound_text", "")
    return (
        answers_step(state)
        or picks_by_code(state)
        or order_actions.answers_action(state)
        or parse.short_answer(text, lexicon.SEE_ALL, 6)
    )


def _structured_answer(state: FlowState) -> bool:
    """A shop-page code, or the paying phone named while the sale waits on payment."""
    step = str(state.get("sales_step") or "")
    return picks_by_code(state) or names_paying_phone(step, state.get("inbound_text", ""))
