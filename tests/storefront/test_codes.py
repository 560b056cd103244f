"""The product code: what the page writes, the bot reads back, and nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tulia.storefront.codes import DIRECT, ProductCode, find_code

ids = st.integers(min_value=1, max_value=10**12 - 1)
chatter = st.text(alphabet=st.characters(blacklist_characters="#"), max_size=80)


tags = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,39}", fullmatch=True)


@given(ids, st.none() | ids, tags, chatter, chatter)
def test_a_written_code_reads_back_anywhere_in_a_message(
    item: int, variant: int | None, source: str, before: str, after: str
) -> None:
    code = ProductCode(item, variant, source)
    assert find_code(f"{before} {code} {after}") == code


def test_a_direct_visits_code_has_no_source_suffix() -> None:
    assert str(ProductCode(12, 34)) == "#P12V34"
    assert str(ProductCode(12, 34, "chat")) == "#P12V34-chat"
    assert find_code("Hi! #P12V34") == ProductCode(12, 34, DIRECT)
    assert find_code("Hi! #p12-QR.") == ProductCode(12, None, "qr")


@given(chatter)
def test_a_message_without_a_code_selects_nothing(text: str) -> None:
    assert find_code(text) is None


@given(ids, ids)
def test_two_different_codes_are_no_selection(first: int, second: int) -> None:
    text = f"#P{first} or #P{second}V7"
    assert find_code(text) is None


def test_order_references_and_hashtags_are_not_codes() -> None:
    for text in ("KI-AB12CD", "#promo", "#P", "#P0", "P12", "# P12"):
        assert find_code(text) is None
