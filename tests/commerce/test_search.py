"""Catalog search: languages, typos, filters, the six-result cap, tenant isolation."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.commerce import factories as f
from tools.runner import call_tool
from tulia.commerce.search import SearchFilters, search_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def shops(tenant, stranger):
    sneakers = f.category(tenant, "Sneakers")
    sandals = f.category(tenant, "Sandals")
    f.item(
        tenant,
        "Nike Air Max 90",
        14500,
        brand="Nike",
        cat=sneakers,
        variants=[
            {"attributes": {"size": "42", "colour": "black"}},
            {"attributes": {"size": "44", "colour": "white"}, "stock": 0},
        ],
    )
    f.item(tenant, "Adidas Samba OG", 13000, brand="Adidas", cat=sneakers, stock=0)
    f.item(tenant, "Vans Old Skool", 7500, brand="Vans", cat=sneakers)
    f.item(tenant, "Adidas Adilette Slides", 3500, brand="Adidas", cat=sandals)
    greens = f.category(stranger, "Mboga")
    f.item(stranger, "Sukuma Wiki (fungu)", 20, cat=greens, aliases=["kale"])
    f.item(stranger, "Nyanya (kilo)", 120, cat=greens)
    f.item(stranger, "Nike Air Max 90 (Mama's shoes)", 1, cat=greens)
    f.index(tenant)
    f.index(stranger)


def _names(tenant, query, **filters) -> list[str]:
    return [
        hit.item.name for hit in search_catalog(tenant.id, query, SearchFilters(**filters)).hits
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("air max", "Nike Air Max 90"),
        ("nkie air mxa", "Nike Air Max 90"),  # typos
        ("samba", "Adidas Samba OG"),
        ("ndala za adidas", "Adidas Adilette Slides"),  # Swahili
        ("raba za vans", "Vans Old Skool"),  # Sheng
    ],
)
def test_finds_by_name_typo_and_local_words(tenant, shops, query, expected) -> None:
    assert expected in _names(tenant, query)[:3]


def test_swahili_grocery_words(stranger, shops) -> None:
    assert _names(stranger, "sukuma")[0] == "Sukuma Wiki (fungu)"
    assert _names(stranger, "kale")[0] == "Sukuma Wiki (fungu)"
    assert _names(stranger, "tomatoes")[0] == "Nyanya (kilo)"


def test_filters(tenant, shops) -> None:
    assert _names(tenant, "adidas", category="sandals") == ["Adidas Adilette Slides"]
    assert "Adidas Samba OG" not in _names(tenant, "adidas", in_stock=True)
    assert _names(tenant, "", max_price=Decimal(8000)) == [
        "Adidas Adilette Slides",
        "Vans Old Skool",
    ]
    assert _names(tenant, "nike", attributes={"size": "42"}) == ["Nike Air Max 90"]
    assert _names(tenant, "nike", attributes={"size": "40"}) == []


def test_search_never_sees_another_tenant(tenant, stranger, shops) -> None:
    assert "Sukuma Wiki (fungu)" not in _names(tenant, "sukuma wiki kale")
    assert all("Mama" in n or "Sukuma" in n or "Nyanya" in n for n in _names(stranger, "air max"))


def test_confidence_and_estimate(tenant, shops) -> None:
    good = search_catalog(tenant.id, "adidas")
    assert good.total_estimate >= 2
    assert good.confidence >= 0.5
    nothing = search_catalog(tenant.id, "qqqq zzzz")
    assert nothing.confidence < good.confidence


def test_tool_returns_summaries_and_catalog_link(tenant, stranger, shops) -> None:
    out = call_tool("catalog_search", f.payload(tenant, query="air max", in_stock=True)).unwrap()
    top = out.results[0]
    assert top.name == "Nike Air Max 90"
    assert top.options == {"colour": ["black"], "size": ["42"]}  # the 44 is sold out
    assert (top.price_from, top.in_stock) == (Decimal("14500.00"), True)


def test_stranger_tool_call_finds_only_its_own(tenant, stranger, shops) -> None:
    out = call_tool("catalog_search", f.payload(stranger, query="samba vans slides")).unwrap()
    assert {r.name for r in out.results} <= {
        "Sukuma Wiki (fungu)",
        "Nyanya (kilo)",
        "Nike Air Max 90 (Mama's shoes)",
    }


def test_search_tool_query_count_is_pinned(tenant, shops, django_assert_max_num_queries) -> None:
    with django_assert_max_num_queries(18):
        call_tool("catalog_search", f.payload(tenant, query="nkie air mxa", in_stock=True))
