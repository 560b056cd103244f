"""journeys/README.md's state schema page lists every key as journeys/state.py declares it."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any, get_args, get_type_hints

from journeys import state

README = Path(state.__file__).with_name("README.md")
ROW = re.compile(r"^\| `(\w+)` \| `([\w.]+)` \| `(.+)` \| (.+) \|$")
WHOLE_PART = "its fields' defaults"
PARTS = (
    state.Identity,
    state.ShopPart,
    state.CustomerPart,
    state.LastTurn,
    state.Parts,
    state.GovernorCounts,
    state.CheckoutPart,
    state.SessionPart,
    state.TurnScratch,
)


def page_rows() -> dict[str, tuple[str, str, str]]:
    """key -> (part, type, default) as the page's table shows them."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        found = ROW.match(line)
        if found:
            part, key, kind, default = found.groups()
            rows[key] = (part, kind.replace("\\|", "|"), default)
    return rows


def nested() -> dict[str, type]:
    """state key -> the TypedDict of its nested part (`Annotated[GovernancePart, merge_part]`)."""
    hints = get_type_hints(state.Parts, include_extras=True)
    return {key: get_args(hint)[0] for key, hint in hints.items()}


def declared() -> dict[str, tuple[str, str]]:
    """key -> (part, type) from each part's own annotations (strings: postponed); a
    nested part's field as `part.field`."""
    found: dict[str, tuple[str, str]] = {}
    within = [(part, "") for part in PARTS] + [(t, f"{k}.") for k, t in nested().items()]
    for part, prefix in within:
        for key, annotation in inspect.get_annotations(part).items():
            shown = str(getattr(annotation, "__forward_arg__", annotation))
            found[prefix + key] = (part.__name__, shown)
    return found


def defaults() -> dict[str, Any]:
    """DEFAULTS with each nested part's fields as `part.field`."""
    flat: dict[str, Any] = {}
    for key, value in state.DEFAULTS.items():
        if key in state.NESTED:
            flat[key] = WHOLE_PART
            flat |= {f"{key}.{field}": default for field, default in value.items()}
        else:
            flat[key] = value
    return flat


def shown_default(key: str, value: Any) -> str:
    if key == "state_version":
        return f"`STATE_VERSION` ({state.STATE_VERSION})"
    if value == WHOLE_PART:
        return WHOLE_PART
    return f"`{json.dumps(value)}`"


def test_the_page_lists_every_key_once_with_its_part_and_type() -> None:
    rows = page_rows()
    assert set(rows) == set(declared())
    assert {key for key in rows if "." not in key} == state.PERSISTED_KEYS | state.SCRATCH_KEYS
    assert {key: row[:2] for key, row in rows.items()} == declared()


def test_the_page_shows_each_default_as_defaults_holds_it() -> None:
    rows = page_rows()
    for key, value in defaults().items():
        assert rows[key][2] == shown_default(key, value), key
    without = {key for key, row in rows.items() if row[2] == "from the turn"}
    assert without == {"tenant_id", "conversation_id", "request_id"}
    assert without.isdisjoint(defaults())
    assert set(defaults()) | without == set(rows)
