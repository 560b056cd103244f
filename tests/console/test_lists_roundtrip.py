"""Value -> page -> value: every list a shop keeps as rows comes back from its own form
exactly as stored (what the page shows is what a browser posts back)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tulia.console.row_fields import DeliveryZonesField, ProductDetailsField, ReturnRulesField
from tulia.console.rows import RowsField

# Words as an owner types them: no surrounding spaces, no commas inside a place name.
_word = st.text(
    st.characters(categories=("L", "N", "P", "S"), max_codepoint=0x2FFF), min_size=1, max_size=8
)
_words = st.lists(_word, min_size=1, max_size=3).map(" ".join)
_place = _words.filter(lambda w: "," not in w)
# Input generation is timed by Hypothesis; on the shared, loaded machine it runs slow.
_loaded = settings(suppress_health_check=[HealthCheck.too_slow])


def _posted(field: RowsField, value: Any) -> dict[str, list[str]]:
    """What the browser posts back from the rendered rows, by input name."""
    columns = field.widget.columns
    rows = field.prepare_value(value)
    return {f"f_{c.name}": [row[i] for row in rows] for i, c in enumerate(columns)}


def _round_trip(field: RowsField, value: Any) -> Any:
    data = _posted(field, value)
    return field.clean(field.widget.value_from_datadict(data, {}, "f"))


def _unique_by(key: Any) -> Any:
    return lambda items: len({key(i) for i in items}) == len(items)


_zone = st.builds(
    lambda name, fee, areas, courier: {
        "name": name,
        "fee": fee,
        "areas": areas,
        **({"courier": True} if courier else {}),
    },
    _words,
    st.integers(0, 100_000),
    st.lists(_place, max_size=4),
    st.booleans(),
)


@_loaded
@given(st.lists(_zone, max_size=6).filter(_unique_by(lambda z: z["name"].casefold())))
def test_zones_come_back_as_stored(zones: list[dict[str, Any]]) -> None:
    assert _round_trip(DeliveryZonesField(), zones) == zones


_detail_value = st.one_of(
    _words, st.just(""), st.booleans(), st.integers(-(10**6), 10**6), st.none()
)


@_loaded
@given(st.dictionaries(_words, _detail_value, max_size=6).filter(_unique_by(str.casefold)))
def test_details_come_back_as_stored_with_their_kinds(details: dict[str, Any]) -> None:
    back = _round_trip(ProductDetailsField(), details)
    assert back == details
    assert [type(v) for v in back.values()] == [type(v) for v in details.values()]


_rule = st.builds(
    lambda ret, ref, never: {
        **({"return_days": ret} if ret is not None else {}),
        **({"refund_days": ref} if ref is not None else {}),
        **({"returnable": False} if never else {}),
    },
    st.none() | st.integers(0, 365),
    st.none() | st.integers(0, 365),
    st.booleans(),
)
_slug = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)


@_loaded
@given(st.dictionaries(_slug, _rule, max_size=5), st.booleans())
def test_return_rules_come_back_as_stored(rules: dict[str, Any], named: bool) -> None:
    field = ReturnRulesField()
    if named:  # the shop's categories listed by name, or only the stored slugs
        field.set_categories([(slug, slug.title()) for slug in rules])
    assert _round_trip(field, rules) == rules


def test_an_unchanged_page_is_not_a_change() -> None:
    zones = [{"name": "Kangemi", "fee": 100, "areas": ["kawangware"]}]
    field = DeliveryZonesField()
    posted = field.widget.value_from_datadict(_posted(field, zones), {}, "f")
    assert not field.has_changed(zones, posted)
    assert field.has_changed([], posted)
