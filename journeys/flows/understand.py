"""The classifier nodes as the graph runs them: the LLM is not asked where its answer
cannot change the turn.

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

from journeys.context import RunContext
from journeys.flows import lexicon, order_actions, parse
from journeys.flows.checkout import names_paying_phone
from journeys.flows.sales import answers_step, picks_by_code
from journeys.flows.state import FlowState
from journeys.nodes import governance
from journeys.nodes.deps import EngineDeps

SHORT_REPLY_WORDS = 2


def _offline(deps: EngineDeps) -> EngineDeps:
    return replace(deps, gateway=None)


def intent_classify(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    chosen = _offline(deps) if answers_step(state) else deps
    return governance.intent_classify(state, ctx, chosen)  # type: ignore[return-value]


def language_policy(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    short = len(parse.words(state.get("inbound_text", ""))) <= SHORT_REPLY_WORDS
    last = state.get("last_language")
    chosen = _offline(deps) if short and last else deps
    update: FlowState = governance.language_policy(state, ctx, chosen)  # type: ignore[assignment]
    # The answer to the question the sale is waiting on ("ya kwanza", "kadi"): the
    # customer's register does not show in it (a lone word is already read so by
    # detect_language).
    keeps = answers_step(state) and last in state.get("allowed_languages", [])
    if keeps and not state.get("customer_language_pref"):
        update["response_language"] = last  # type: ignore[typeddict-item]
    return update


def governor_spam_casual(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    answering = _answers_pending(state)
    chosen = _offline(deps) if answering else deps
    update: FlowState = governance.governor_spam_casual(state, ctx, chosen)  # type: ignore[assignment]
    overruled = ("casual", "spam") if _structured_answer(state) else ("casual",)
    if answering and update.get("governor_classification") in overruled:
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
