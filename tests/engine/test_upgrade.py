"""journeys.upgrade on its own: any stored shape comes out whole, current and stable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from journeys.state import NESTED, PART_FIELDS, PERSISTED_KEYS, SCRATCH_KEYS, STATE_VERSION
from journeys.upgrade import FLAT_NAMES, upgrade

STATES = Path(__file__).parents[1] / "flows" / "fixtures" / "states"
SAVED: list[dict[str, Any]] = [
    step["state_before"]
    for path in sorted(STATES.glob("*.json"))
    for step in json.loads(path.read_text(encoding="utf-8"))["steps"]
]


@given(st.sampled_from(SAVED), st.data())
def test_any_part_of_an_old_state_upgrades_to_a_whole_current_one(
    saved: dict[str, Any], data: st.DataObject
) -> None:
    kept = data.draw(st.sets(st.sampled_from(sorted(saved) or ["turn_count"])))
    old = {key: saved[key] for key in kept if key in saved}
    old |= {"turn_facts": [{"amount": 1}], "message_reading": {}}  # scratch some stored
    new = upgrade(old)
    # Identity is the turn's to give (journeys.handler), never a default.
    assert PERSISTED_KEYS - {"tenant_id", "conversation_id", "request_id"} <= set(new)
    assert set(new) <= PERSISTED_KEYS
    assert not SCRATCH_KEYS & set(new)
    assert new["state_version"] == STATE_VERSION
    assert all(new[key] == value for key, value in old.items() if key in PERSISTED_KEYS)
    assert all(set(new[part]) == PART_FIELDS[part] for part in NESTED)
    for part, names in FLAT_NAMES.items():
        assert all(new[part][names[key]] == value for key, value in old.items() if key in names)
    assert upgrade(new) == new


def test_every_flat_key_of_version_2_has_a_home() -> None:
    """Each moved key lands on a field its part declares, and none is kept flat."""
    for part, names in FLAT_NAMES.items():
        assert set(names.values()) <= PART_FIELDS[part]
        assert not set(names) & PERSISTED_KEYS
