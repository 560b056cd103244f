"""The final reply guard: amounts in a reply must appear in this turn's tool outputs."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.guard import guarded_reply, reply_amounts, ungrounded_amounts
from journeys.templates import text_nodes
from journeys.templates.text_nodes import OptionFact
from tests.hypothesis_profiles import examples
from tulia.text import ReplyKey

prices = st.decimals(min_value=1, max_value=900_000, places=2, allow_nan=False)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("*KES 3,200.50*", Decimal("3200.50")),
        ("Ksh 900 only", Decimal("900")),
        ("sh. 50", Decimal("50")),
        ("ni 1,250/= tu", Decimal("1250")),
        ("300 bob", Decimal("300")),
    ],
)
def test_currency_marked_amounts_are_found(text: str, amount: Decimal) -> None:
    assert reply_amounts(text) == {amount}


def test_sizes_quantities_and_order_numbers_are_not_amounts() -> None:
    assert reply_amounts("2 x size 42 shoes, order 1043") == set()


def test_an_order_reference_with_sh_and_a_digit_is_not_an_amount() -> None:
    assert reply_amounts("Order KI-SH3BMX: total *KES 1,950*.") == {Decimal("1950")}


def test_invented_price_is_caught_and_the_template_wins() -> None:
    facts = {"items": [{"name": "Air Max", "price": "4500.00"}]}
    assert ungrounded_amounts("Air Max is KES 4,000 today", facts) == {Decimal("4000")}
    assert guarded_reply("Air Max is KES 4,000 today", facts, "template") == "template"


def test_price_nested_anywhere_in_tool_output_is_allowed() -> None:
    facts = {"order": {"lines": [{"unit_price": 1250}], "total": Decimal("2500")}}
    assert guarded_reply("2 x KES 1,250 = KES 2,500", facts, "template") != "template"


@settings(max_examples=examples(100))
@given(
    shortlist=st.lists(prices, min_size=1, max_size=6),
    language=st.sampled_from(["en", "sw", "sheng"]),
)
def test_template_replies_only_print_amounts_from_the_facts(shortlist, language) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 2: No Data Hallucination.

    A shortlist rendered from tool prices passes the guard; the guard needs no exemption
    for the deterministic path."""
    options = [OptionFact(name=f"Item {i}", price=p) for i, p in enumerate(shortlist)]
    facts = [{"name": o.name, "price": str(o.price)} for o in options]
    reply = text_nodes.catalog_present_options(
        ReplyKey("c", 1), language, query="q", options=options
    )
    assert ungrounded_amounts(reply, facts) == set()
