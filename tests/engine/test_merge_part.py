"""merge_part, the reducer of every nested part, and clearing a field through it."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from journeys.graph import build
from journeys.state import DEFAULTS, NESTED, combine, fresh, merge_part

FIELDS = st.sampled_from(["step", "action", "cart", "loops"])
VALUES = st.none() | st.integers() | st.text(max_size=3) | st.lists(st.integers(), max_size=2)
PARTIAL = st.dictionaries(FIELDS, VALUES)


@given(PARTIAL, PARTIAL)
def test_a_partial_update_replaces_its_fields_and_keeps_the_others(
    stored: dict[str, Any], update: dict[str, Any]
) -> None:
    merged = merge_part(stored, update)
    assert set(merged) == set(stored) | set(update)
    assert all(merged[field] == value for field, value in update.items())
    assert all(merged[field] == stored[field] for field in set(stored) - set(update))


@given(PARTIAL, PARTIAL, PARTIAL)
def test_updates_merge_in_any_grouping(
    a: dict[str, Any], b: dict[str, Any], c: dict[str, Any]
) -> None:
    """Two nodes' updates applied one by one equal them combined first (`combine`)."""
    assert merge_part(merge_part(a, b), c) == merge_part(a, merge_part(b, c))


@given(PARTIAL, PARTIAL)
def test_the_stored_part_is_never_changed_in_place(
    stored: dict[str, Any], update: dict[str, Any]
) -> None:
    before = dict(stored)
    merge_part(stored, update)
    assert stored == before


@given(st.sampled_from(sorted(NESTED)), st.data())
def test_writing_a_fresh_part_resets_every_field(part: str, data: st.DataObject) -> None:
    """However a part was left, `fresh(part)` through the reducer is its defaults."""
    fields = sorted(DEFAULTS[part])
    used = data.draw(st.fixed_dictionaries({}, optional=dict.fromkeys(fields, VALUES)))
    stored = {**fresh(part), **used}
    assert merge_part(stored, fresh(part)) == DEFAULTS[part]


def test_clearing_a_field_is_writing_its_default() -> None:
    stored = {**fresh("governance"), "action": "redirect"}
    assert merge_part(stored, {"action": None}) == DEFAULTS["governance"]


def test_combine_merges_a_part_written_twice_and_replaces_the_rest() -> None:
    first = {"governance": {"action": None}, "turn_count": 1}
    later = {"governance": {"classification": "spam"}, "turn_count": 2}
    assert combine(first, later) == {
        "governance": {"action": None, "classification": "spam"},
        "turn_count": 2,
    }


def test_the_graph_merges_every_nested_part_with_merge_part() -> None:
    """LangGraph reads the reducer from the state's annotations: one per nested part."""
    channels = build().channels
    assert {name: getattr(channels[name], "operator", None) for name in NESTED} == dict.fromkeys(
        NESTED, merge_part
    )
