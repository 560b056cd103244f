"""Stored states of earlier shapes, brought up to the current one (`STATE_VERSION`).

The gateway keeps each conversation's state as JSON between turns, so a deploy meets
states written by older code. Before a turn reads one, `upgrade` runs the steps from
its version to the current one, keeps the persisted keys only and fills what is
missing from the defaults. Each step is a pure function of the stored dict; a new
shape adds a step and bumps `STATE_VERSION`, and tests/flows/test_state_compat.py
replays states captured by running the older code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from copy import deepcopy
from typing import Any

from journeys.state import (
    DEFAULTS,
    NESTED,
    PART_FIELDS,
    PERSISTED_KEYS,
    SCRATCH_KEYS,
    STATE_VERSION,
)

logger = logging.getLogger("tulia.journeys")

Step = Callable[[dict[str, Any]], dict[str, Any]]


def _from_unversioned(saved: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (every state before the version existed, 9040080 to fe806fe): the same
    flat keys, some still missing in the oldest (shop_version, quoted_at, hinted_codes,
    delivery_options, order_action ...: the defaults fill them), and per-turn scratch
    that some versions stored (turn_facts, message_reading): dropped."""
    return {key: value for key, value in saved.items() if key not in SCRATCH_KEYS}


FLAT_NAMES: dict[str, dict[str, str]] = {
    "governance": {
        "governor_classification": "classification",
        "governor_confidence": "confidence",
        "governor_action": "action",
    },
    "support": {
        "kb_snippets": "snippets",
        "support_misses": "misses",
        "order_action": "order_action",
        "clarify_text": "clarify_text",
        "clarify_intent": "clarify_intent",
        "clarify_loops": "clarify_loops",
    },
    "sale": {
        "last_catalog_query": "query",
        "last_catalog_filters": "filters",
        "last_catalog_results": "results",
        "catalog_total_matches_estimate": "total_estimate",
        "selected_item_ids": "selected_item_ids",
        "sales_step": "step",
        "pending_item": "pending_item",
        "rejections": "rejections",
    },
    "escalation": {
        "escalation_required": "required",
        "escalation_category": "category",
        "escalation_reason": "reason",
        "handoff_ticket_id": "ticket_id",
        "frustrated_turns": "frustrated_turns",
        "tool_error_streak": "tool_error_streak",
        "waiting_notice_at": "waiting_notice_at",
        "transcript": "transcript",
    },
}
"""Version 2's flat keys, by the nested part (version 3) and the field they became."""


def _nested(saved: dict[str, Any]) -> dict[str, Any]:
    """Version 2 (flat typed parts): each nested part's keys moved into it, renamed."""
    state = dict(saved)
    for part, names in FLAT_NAMES.items():
        state[part] = {new: state.pop(old) for old, new in names.items() if old in state}
    return state


STEPS: dict[int, Step] = {1: _from_unversioned, 2: _nested}
"""The step that turns a state of version N into version N + 1."""


def upgrade(saved: Mapping[str, Any]) -> dict[str, Any]:
    """Any stored state (or {} for a new conversation) in the current shape."""
    state = dict(saved)
    version = int(state.get("state_version", 1))
    if version > STATE_VERSION:  # written by newer code (a rollback): read what we know
        logger.warning("state version %s is newer than %s", version, STATE_VERSION)
    while version < STATE_VERSION:
        state = STEPS[version](state)
        version += 1
    current = {k: deepcopy(v) for k, v in DEFAULTS.items() if k in PERSISTED_KEYS}
    for key, value in state.items():
        if key in NESTED and isinstance(value, Mapping):
            known = {f: v for f, v in value.items() if f in PART_FIELDS[key]}
            current[key] = {**current[key], **known}
        elif key in PERSISTED_KEYS - NESTED:
            current[key] = value
    current["state_version"] = STATE_VERSION
    return current
