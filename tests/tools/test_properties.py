"""Property tests of the tools (Hypothesis, 100 examples each)."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.context import tenant_context
from tests.commerce import factories as f
from tests.hypothesis_profiles import examples
from tools.runner import call_tool
from tulia.commerce.indexing import embed_items, refresh_search_text
from tulia.commerce.models import CatalogItem, Order

pytestmark = pytest.mark.django_db

PROPERTY = settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
VOCAB = ["nike", "air", "max", "viatu", "raba", "sukuma", "wiki", "jordan", "slides", "42"]


def _catalog(tenant, size: int, prices: list[int]) -> list[CatalogItem]:
    with tenant_context(tenant.id) as tid:
        items = CatalogItem.objects.bulk_create(
            CatalogItem(
                tenant_id=tid,
                sku=f"sku-{n}",
                name=f"{VOCAB[n % len(VOCAB)]} {VOCAB[(n * 7) % len(VOCAB)]} {n}",
                price=Decimal(prices[n % len(prices)]),
                stock=n % 4,
            )
            for n in range(size)
        )
    ids = [item.pk for item in items]
    refresh_search_text(tenant.id, ids)
    embed_items(tenant.id, ids)
    return items


@PROPERTY
@given(
    size=st.integers(min_value=0, max_value=40),
    query=st.text(max_size=60),
    in_stock=st.booleans(),
    max_price=st.one_of(st.none(), st.integers(min_value=0, max_value=20_000)),
)
def test_catalog_search_never_returns_more_than_six(tenant, size, query, in_stock, max_price):
    """Feature: tulia-ai-v2-langgraph-refactor, Property 6: Product Discovery Constraints"""
    with transaction.atomic():
        _catalog(tenant, size, [500, 2500, 9000, 15000])
        extra = {} if max_price is None else {"max_price": max_price}
        result = call_tool(
            "catalog_search", f.payload(tenant, query=query, in_stock=in_stock, **extra)
        )
        assert result.ok, result.error
        assert len(result.unwrap().results) <= 6
        assert result.unwrap().total_estimate >= 0
        assert 0 <= result.unwrap().confidence <= 1
        transaction.set_rollback(True)


def _expected_discount(kind: str, value: int, min_spend: int, subtotal: Decimal) -> Decimal:
    if subtotal < min_spend:
        return Decimal("0.00")
    raw = subtotal * value / 100 if kind == "percentage" else Decimal(value)
    return min(raw, subtotal).quantize(Decimal(1), rounding=ROUND_DOWN).quantize(Decimal("0.01"))


lines_strategy = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=5),  # which item
        st.integers(min_value=1, max_value=3),  # quantity
        st.integers(min_value=0, max_value=99_999),  # a price the caller tries to set
    ),
    min_size=1,
    max_size=5,
)


@PROPERTY
@given(
    prices=st.lists(st.integers(min_value=0, max_value=250_000), min_size=6, max_size=6),
    lines=lines_strategy,
    caller_sets_price=st.booleans(),
    coupon=st.tuples(
        st.sampled_from(["percentage", "fixed"]),
        st.integers(min_value=1, max_value=100),  # percent, or hundreds of KES
        st.integers(min_value=0, max_value=300_000),  # minimum spend
    ),
)
def test_order_totals_come_only_from_catalog_prices(
    tenant, prices, lines, caller_sets_price, coupon
):
    """Feature: tulia-ai-v2-langgraph-refactor, Property 2: No Data Hallucination"""
    kind, value, min_spend = coupon
    with transaction.atomic():
        items = _catalog(tenant, 6, prices)
        with tenant_context(tenant.id):
            CatalogItem.objects.update(stock=100)
        buyer = f.customer(tenant)
        f.offer(
            tenant,
            "PROP",
            kind=kind,
            value=str(value * (1 if kind == "percentage" else 100)),
            min_spend=Decimal(min_spend),
        )
        payload_lines = [
            {"item_id": items[i].pk, "quantity": q, **({"price": p} if caller_sets_price else {})}
            for i, q, p in lines
        ]
        made = call_tool(
            "order_create", f.payload(tenant, customer_id=buyer.pk, lines=payload_lines)
        )
        if caller_sets_price:
            assert made.error_code == "invalid_input"
            with tenant_context(tenant.id):
                assert Order.objects.count() == 0
            transaction.set_rollback(True)
            return
        subtotal = sum((Decimal(prices[i]) * q for i, q, _ in lines), Decimal("0.00"))
        assert made.unwrap().subtotal == made.unwrap().total == subtotal
        applied = call_tool(
            "order_apply_coupon",
            f.payload(tenant, customer_id=buyer.pk, order_id=made.unwrap().order_id, code="PROP"),
        )
        fixed_value = value * (1 if kind == "percentage" else 100)
        discount = _expected_discount(kind, fixed_value, min_spend, subtotal)
        if discount == 0:
            assert applied.error_code == "coupon_rejected"
        else:
            assert applied.unwrap().discount_total == discount
            assert applied.unwrap().total == subtotal - discount
            assert applied.unwrap().amount_whole_kes == int(subtotal - discount)
        transaction.set_rollback(True)
