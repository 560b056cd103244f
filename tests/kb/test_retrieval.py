"""Hybrid retrieval: right section first, filters, top-k, NO_CONTEXT and knowledge gaps."""

from __future__ import annotations

import pytest

from kb.answers import find_context
from kb.models import KbSettings, KnowledgeGap
from kb.retrieval import retrieve
from tenants.context import tenant_context

pytestmark = pytest.mark.django_db

RETURNS = b"""# Returns policy

## Return window
Unworn sneakers can be returned within 7 days of delivery, in the original box.

## Refunds
Refunds go to the M-Pesa number that paid, within 3 working days after inspection.
"""
DELIVERY = b"""# Delivery

## Fees
Delivery in the Nairobi CBD costs KES 200; Westlands and Kilimani cost KES 250.

## Outside Nairobi
Parcels to Mombasa and Kisumu go by courier and take 1 to 3 days.
"""


@pytest.fixture
def shop_kb(tenant, upload):
    upload(tenant, "returns.md", RETURNS, title="Returns policy", kind="policy")
    upload(tenant, "delivery.md", DELIVERY, title="Delivery", kind="doc")
    return tenant


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("How long do refunds take?", "Returns policy > Refunds"),
        ("How much is delivery to Westlands?", "Delivery > Fees"),
        ("Do you send parcels to Kisumu?", "Delivery > Outside Nairobi"),
        ("Nitarejeshewa pesa kwa M-Pesa?", "Returns policy > Refunds"),
    ],
)
def test_best_hit_is_the_right_section(shop_kb, question, section) -> None:
    result = retrieve(shop_kb.id, question)
    assert not result.no_context, result.reason
    assert result.hits[0].section == section
    assert result.hits[0].title in {"Returns policy", "Delivery"}
    assert 0 < result.hits[0].score <= 1


def test_hits_carry_title_section_type_and_score(shop_kb) -> None:
    hit = retrieve(shop_kb.id, "refund to M-Pesa").hits[0]
    assert (hit.title, hit.section, hit.source_type) == (
        "Returns policy",
        "Returns policy > Refunds",
        "policy",
    )


def test_source_type_filter_keeps_only_that_type(shop_kb) -> None:
    result = retrieve(shop_kb.id, "refunds and delivery fees", source_type="doc")
    assert result.hits
    assert {hit.source_type for hit in result.hits} == {"doc"}


def test_top_k_is_never_more_than_eight(tenant, upload) -> None:
    body = "\n\n".join(f"## Zone {n}\nDelivery to zone {n} costs KES {100 + n}." for n in range(12))
    upload(tenant, "zones.md", f"# Zones\n\n{body}".encode())
    assert len(retrieve(tenant.id, "delivery zone costs", top_k=50).hits) == 8
    assert len(retrieve(tenant.id, "delivery zone costs", top_k=3).hits) == 3


def test_unrelated_question_is_no_context(shop_kb) -> None:
    result = retrieve(shop_kb.id, "Do you repair laptops and smartphones?")
    assert result.no_context
    assert result.reason


def test_thresholds_come_from_the_tenants_settings(shop_kb) -> None:
    assert not retrieve(shop_kb.id, "How long do refunds take?").no_context
    with tenant_context(shop_kb.id):
        KbSettings.objects.create(tenant=shop_kb, min_hits=1, min_best_score=0.99)
    result = retrieve(shop_kb.id, "How long do refunds take?")
    assert result.no_context
    assert "below 0.99" in result.reason


def test_min_hits_threshold(shop_kb) -> None:
    with tenant_context(shop_kb.id):
        KbSettings.objects.create(tenant=shop_kb, top_k=2, min_hits=3)
    result = retrieve(shop_kb.id, "How long do refunds take?")
    assert result.no_context
    assert "fewer than the minimum 3" in result.reason


def test_no_context_questions_are_counted_as_gaps(shop_kb, stranger) -> None:
    for question in (
        "Do you sell gift vouchers?",
        "do you sell GIFT vouchers",
        "How long do refunds take?",
    ):
        find_context(shop_kb.id, question)
    with tenant_context(shop_kb.id):
        gaps = {gap.question_key: gap.count for gap in KnowledgeGap.objects.all()}
    assert gaps == {"do you sell gift vouchers": 2}
    with tenant_context(stranger.id):
        assert not KnowledgeGap.objects.exists()


def test_empty_knowledge_base_is_no_context(tenant) -> None:
    result = retrieve(tenant.id, "What are your opening hours?")
    assert result.no_context
    assert result.hits == []
