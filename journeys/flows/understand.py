"""The governance nodes: consent first, then intent, language and the governor; the
LLM is not asked where its answer cannot change the turn.

Each classifier runs its trained model (calibrated: the confidence is the chance the
answer is right). When that is below the node's SPEC threshold and an LLM is configured,
the node asks for the turn's one LLM reading of the message, which answers intent,
language and governor together: the first unsure node makes the call, a later unsure
node of the same turn reads the stored answer (`message_reading`), so a turn costs at
most one classification call, not three. A failed call leaves every node with its own
answer. LLM calls are added to `state["llm_calls"]` so the turn can report them.

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

from dataclasses import replace
from typing import Any, cast

from journeys.context import RunContext
from journeys.flows import lexicon, order_actions, parse
from journeys.flows.checkout import names_paying_phone
from journeys.flows.common import reply_key
from journeys.flows.sales import answers_step, picks_by_code
from journeys.flows.state import FlowState
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
from journeys.nodes.routing import GOVERNOR_THRESHOLD, INTENT_ROUTE_THRESHOLD
from journeys.state import GovernancePart
from journeys.templates.governance import consent_confirmed

SHORT_REPLY_WORDS = 2
READING_NODE = "message_reading"


def _update(**fields: Any) -> FlowState:
    return cast(FlowState, fields)


def _reading(
    state: FlowState, deps: EngineDeps, *, sure: bool, may_ask: bool = True
) -> tuple[MessageReading | None, dict[str, Any]]:
    """The turn's LLM reading, if this node needs one: (reading or None, state update).

    Asked only when the node is unsure (or the LLM mode always asks), an LLM is
    configured and the turn is one where its answer can change something (`may_ask`);
    asked at most once per turn: a stored reading, or a stored failure ({}), answers
    every later node without another call.
    """
    gateway = deps.gateway
    if not may_ask or gateway is None or not gateway.settings.enabled:
        return None, {}
    if sure and not gateway.settings.always_asks:
        return None, {}
    stored = state.get("message_reading")
    if stored is not None:
        return (MessageReading.model_validate(stored) if stored else None), {}
    attempt = gateway.structured(
        READING_NODE, MessageReading, prompts.MESSAGE_READING, state["inbound_text"]
    )
    found = attempt.value
    return found, {
        "message_reading": found.model_dump() if found is not None else {},
        "llm_calls": state.get("llm_calls", 0) + int(attempt.called),
    }


def _reply_language(state: FlowState, detected: LanguageResult) -> str:
    return choose_response_language(
        detected,
        allowed=state.get("allowed_languages", []),
        customer_pref=state.get("customer_language_pref"),
        tenant_default=state.get("default_language", "en"),
    ).language


def _held_language(state: FlowState) -> str | None:
    """The language the customer is known to use: the saved preference, else this
    conversation's last reply's (when the shop allows it)."""
    allowed = state.get("allowed_languages", [])
    for known in (state.get("customer_language_pref"), state.get("last_language")):
        if known and known in allowed:
            return str(known)
    return None


def _plainly_local(detected: LanguageResult) -> bool:
    """Surely Swahili or Sheng; English keywords ("STOP", "hi") are everyone's."""
    return detected.confidence >= SWITCH_THRESHOLD and detected.language != "en"


def consent_check(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """STOP-style commands act before any classifier; no LLM is ever asked about them."""
    extra = state.get("compliance", {}).get("opt_out_keywords", [])
    awaiting = state.get("awaiting_answer", False)
    command = detect_consent_command(state["inbound_text"], extra, awaiting_answer=awaiting)
    if command is None:
        return _update(consent_command=None)
    # "START", "STOP": a keyword shows no register; answered in the customer's language.
    detected = detect_language(state["inbound_text"])
    language = _reply_language(state, detected)
    if not _plainly_local(detected):
        language = _held_language(state) or language
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
    found = classify_intent(state["inbound_text"])
    reading, asked = _reading(
        state,
        deps,
        sure=found.confidence >= INTENT_ROUTE_THRESHOLD,
        may_ask=not answers_step(state),
    )
    if reading is not None:
        found = IntentResult(reading.intent, reading.intent_confidence, {})
    return _update(intent=found.intent, intent_confidence=found.confidence, **asked)


def language_policy(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = state["inbound_text"]
    last = state.get("last_language")
    short = len(parse.words(text)) <= SHORT_REPLY_WORDS
    found = detect_language(text)
    reading, asked = _reading(
        state, deps, sure=found.confidence >= SWITCH_THRESHOLD, may_ask=not (short and last)
    )
    if reading is not None:
        found = LanguageResult(reading.language, reading.language_confidence)
    language = _reply_language(state, found)
    # The answer to the question the sale is waiting on ("ya kwanza", "kadi"): the
    # customer's register does not show in it (a lone word is already read so by
    # detect_language).
    keeps = answers_step(state) and last in state.get("allowed_languages", [])
    if keeps and not state.get("customer_language_pref"):
        language = str(last)
    # Nor does a bare "hi" / "thanks" (unless plainly Swahili or Sheng, "habari yako"):
    # the customer's known language answers it.
    held = _held_language(state)
    if held and parse.acknowledges(text) and not _plainly_local(found):
        language = held
    return _update(
        detected_language=found.language,
        language_confidence=found.confidence,
        response_language=language,
        **asked,
    )


def governor_spam_casual(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    text = state["inbound_text"]
    answering = _answers_pending(state)
    intent = IntentResult(state.get("intent", "unknown"), state.get("intent_confidence", 0.0), {})
    found = classify_governor(text, intent)
    reading, asked = _reading(
        state, deps, sure=found.confidence >= GOVERNOR_THRESHOLD, may_ask=not answering
    )
    if reading is not None:
        found = GovernorResult(reading.classification, reading.governor_confidence, "llm")
    verdict = found.classification
    level = state.get("max_chattiness_level", 2)
    decision = govern(verdict, GovernorCounters.from_state(state), level)
    governance = GovernancePart(
        classification=verdict, confidence=found.confidence, action=decision.action
    )
    counts = decision.counters
    overruled = ("casual", "spam") if _structured_answer(state) else ("casual",)
    if answering and verdict in overruled:
        # "moja", "sawa" or "poa" right after the bot asked how many or whether to go on
        # is the answer, not small talk: it must neither be answered with a greeting nor
        # use up the customer's casual allowance. A phone number for the M-Pesa prompt or
        # a shop-page code is an answer even when it looks like spam. Abuse still wins.
        governance["classification"], governance["action"] = "business", "proceed"
        counts = replace(counts, casual_turns=state.get("casual_turns", 0))
    return _update(
        intent=intent_given_governor(intent.intent, verdict),
        governance=governance,
        casual_turns=counts.casual_turns,
        spam_turns=counts.spam_turns,
        abuse_turns=counts.abuse_turns,
        **asked,
    )


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
    step = str(state["sale"]["step"] or "")
    return picks_by_code(state) or names_paying_phone(step, state.get("inbound_text", ""))
