"""Reading customers' answers in English, Swahili and Sheng."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from journeys.flows import parse
from journeys.flows.common import deep_link, local_phone


@pytest.mark.parametrize("text", ["yes", "YES", "ndio", "sawa", "poa", "ok go ahead", "Yes please"])
def test_yes_in_three_languages(text: str) -> None:
    assert parse.is_yes(text)


@pytest.mark.parametrize("text", ["no", "hapana", "sitaki", "not now", "yes no", "maybe later"])
def test_not_a_yes(text: str) -> None:
    assert not parse.is_yes(text)


def test_a_long_message_containing_yes_is_not_a_confirmation() -> None:
    assert not parse.is_yes("yes but first tell me about the return policy please")


@pytest.mark.parametrize(
    "text", ["ok", "Okay!", "sawa", "sawa sawa", "poa msee", "asante sana", "noted, thanks"]
)
def test_a_nod_or_a_thanks_acknowledges(text: str) -> None:
    assert parse.acknowledges(text)


@pytest.mark.parametrize(
    "text", ["ok nataka viatu", "sawa, where is my order?", "no", "qwzx plmk", "", "hmm"]
)
def test_a_request_or_gibberish_is_no_acknowledgement(text: str) -> None:
    assert not parse.acknowledges(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2", 2), ("number 3", 3), ("ya pili", 2), ("the first one", 1), ("7", None), ("0", None)],
)
def test_choice_by_number_or_ordinal(text: str, expected: int | None) -> None:
    assert parse.number_choice(text, 6) == expected


def test_choice_by_a_distinctive_name_word() -> None:
    names = ["Air Runner Black", "Court Classic White", "Pool Slide Navy"]
    assert parse.name_choice("the white one", names) == 2
    assert parse.name_choice("I want shoes", names) is None


@pytest.mark.parametrize(("text", "expected"), [("2", 2), ("mbili", 2), ("size 42 x 3", 3)])
def test_quantity(text: str, expected: int) -> None:
    assert parse.quantity(text) == expected


def test_wanted_strips_filler_and_reads_budget_and_size() -> None:
    want = parse.wanted("Habari, nataka viatu vya raba size 42 under 5k")
    assert want.query == "viatu raba"
    assert want.filters == {"max_price": "5000"}
    assert want.size == "42"


def test_one_product_word_is_vague() -> None:
    assert parse.is_vague(parse.wanted("I want sneakers"))
    assert not parse.is_vague(parse.wanted("black running sneakers"))


@pytest.mark.parametrize(
    ("text", "methods", "expected"),
    [
        ("mpesa", ["mpesa_stk", "mpesa_c2b"], "mpesa_stk"),
        ("mpesa", ["mpesa_c2b"], "mpesa_c2b"),
        ("kadi", ["mpesa_stk", "pesapal_card"], "pesapal_card"),
        ("2", ["mpesa_stk", "pesapal_card"], "pesapal_card"),
        ("bitcoin", ["mpesa_stk"], None),
    ],
)
def test_payment_method_choice(text: str, methods: list[str], expected: str | None) -> None:
    assert parse.method_choice(text, methods) == expected


def test_order_reference_and_coupon_codes() -> None:
    assert parse.order_reference("where is ki-7h2q4x?") == "KI-7H2Q4X"
    assert parse.coupon_code("use code save10") == "SAVE10"
    assert parse.coupon_code("KICKS10 please") == "KICKS10"
    assert parse.coupon_code("YES") is None


def test_deep_link_carries_the_search() -> None:
    link = deep_link("https://shop.example/catalog", "viatu raba", {"max_price": "5000"})
    assert link == "https://shop.example/catalog?q=viatu+raba&max_price=5000"
    assert deep_link(None, "x", {}) is None


def test_local_phone_format() -> None:
    assert local_phone("+254712345678") == "0712 345 678"


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("air max 95", "air max 95"),
        ("Nataka Air Max 270 size 42", "air max 270"),
        ("niko na doh, nipe air max 90 msee", "air max 90"),
    ],
)
def test_max_after_a_name_word_is_the_model_not_a_budget(text: str, query: str) -> None:
    want = parse.wanted(text)
    assert want.query == query
    assert "max_price" not in want.filters


@pytest.mark.parametrize(
    ("text", "cap"),
    [
        ("sneakers max 3000", "3000"),
        ("max 2500 viatu", "2500"),
        ("air max 95 max kes 9k", "9000"),
        ("nataka sukuma max 100", "100"),
    ],
)
def test_max_with_money_or_after_a_product_kind_is_a_budget(text: str, cap: str) -> None:
    assert parse.wanted(text).filters == {"max_price": cap}


@given(st.sampled_from(["air", "jordan", "nike", "zoom"]), st.integers(1, 999))
def test_a_name_word_then_max_and_a_number_never_caps_the_price(name: str, model: int) -> None:
    want = parse.wanted(f"{name} max {model}")
    assert want.filters == {}
    assert want.query.endswith(f"max {model}")
