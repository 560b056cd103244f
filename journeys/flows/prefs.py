"""Preferences journey: reply language, notifications and marketing consent.

Every change goes through customer_update_preferences, which writes the audit record;
the reply confirms only what the tool saved. STOP-style commands are detected by the
engine's consent_check before anything else; `record_consent` makes the withdrawal
real in the same turn (Properties 10, 11).
"""

from __future__ import annotations

from typing import Any

from journeys.context import RunContext
from journeys.flows import lexicon, parse
from journeys.flows.common import FlowTurn
from journeys.flows.state import FlowState
from journeys.nodes.deps import EngineDeps
from journeys.templates.governance import consent_confirmed
from journeys.templates.text_nodes import prefs_consent_response
from journeys.tooling import CUSTOMER_UPDATE_PREFERENCES
from tools.customer_update_preferences import CustomerUpdatePreferencesOutput

NOTIFICATION_WORDS = {"en": ("on", "off"), "sw": ("zimewashwa", "zimezimwa"),
                      "sheng": ("ziko on", "ziko off")}  # fmt: skip


def record_consent(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    """Save the consent command the engine recognised; its reply stands only if saved."""
    turn = FlowTurn(state, ctx)
    granted = state.get("consent_command") == "opt_in"
    turn.set(journey="prefs", journey_step="prefs.consent")
    saved = _save(turn, marketing_opt_in=granted)
    if saved is None:
        # consent_check assumed the change; unsaved, the flag is unknown again (not a claim).
        turn.set(marketing_opt_in=None)
        return turn.reply(turn.say("prefs_saved_failed"))
    turn.set(marketing_opt_in=saved.marketing_opt_in)
    if granted and not saved.had_withdrawn:  # nothing to come back to: no "again"
        shop = state.get("tenant_name")
        welcome = consent_confirmed(turn.key, turn.language, kind="opt_in_first", shop=shop)
        return turn.reply(welcome)
    return turn.reply(state.get("response_text"))


def prefs(state: FlowState, ctx: RunContext, deps: EngineDeps) -> FlowState:
    turn = FlowTurn(state, ctx)
    turn.set(journey="prefs", journey_step="prefs.update")
    text = turn.text
    if language := parse.requested_language(text):
        return _language(turn, language)
    wanted = parse.switch_wanted(text)
    if wanted is not None and parse.has(text, lexicon.NOTIFICATIONS):
        return _notifications(turn, wanted)
    if wanted is not None and parse.has(text, lexicon.MARKETING):
        return _marketing(turn, wanted)
    return turn.reply(turn.say("prefs_unclear"))


def _save(turn: FlowTurn, **change: Any) -> CustomerUpdatePreferencesOutput | None:
    evidence = turn.text[:500]
    saved = turn.tool(CUSTOMER_UPDATE_PREFERENCES, evidence=evidence, **change)
    return saved.output if saved.ok else None


def _language(turn: FlowTurn, language: str) -> FlowState:
    if _save(turn, language_preference=language) is None:
        return turn.reply(turn.say("prefs_saved_failed"))
    turn.set(customer_language_pref=language, response_language=language, last_language=language)
    text = prefs_consent_response(turn.key, language, change="language", new_language=language)
    return turn.reply(text)


def _notifications(turn: FlowTurn, wanted: bool) -> FlowState:
    if _save(turn, notifications_opt_in=wanted) is None:
        return turn.reply(turn.say("prefs_saved_failed"))
    turn.set(notification_prefs={"notifications": wanted})
    on, off = NOTIFICATION_WORDS.get(turn.language, NOTIFICATION_WORDS["en"])
    summary = on if wanted else off
    text = prefs_consent_response(turn.key, turn.language, change="notifications", summary=summary)
    return turn.reply(text)


def _marketing(turn: FlowTurn, wanted: bool) -> FlowState:
    if _save(turn, marketing_opt_in=wanted) is None:
        return turn.reply(turn.say("prefs_saved_failed"))
    turn.set(marketing_opt_in=wanted)
    return turn.reply(turn.say("prefs_marketing_on" if wanted else "prefs_marketing_off"))
