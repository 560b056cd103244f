"""Approved conversation summaries are a second source; unapproved ones are invisible."""

from __future__ import annotations

import pytest

from kb.models import ConversationSummary
from kb.retrieval import retrieve
from kb.summaries import index_summary, set_approval
from tenants.context import tenant_context

pytestmark = pytest.mark.django_db

TEXT = "A customer asked whether we gift-wrap sneakers. We gift-wrap any pair for KES 150."


@pytest.fixture
def summary(tenant) -> ConversationSummary:
    with tenant_context(tenant.id):
        return ConversationSummary.objects.create(
            tenant=tenant, title="Gift wrapping", text=TEXT, conversation_ref="c-1"
        )


def _summary_hits(tenant, query: str) -> list[str]:
    result = retrieve(tenant.id, query, source_type="summary")
    return [hit.title for hit in result.hits]


def test_unapproved_summary_is_not_searchable(tenant, summary) -> None:
    assert index_summary(tenant.id, summary.pk) == 0
    assert _summary_hits(tenant, "do you gift-wrap sneakers?") == []


def test_approved_summary_answers_questions(tenant, summary) -> None:
    set_approval(tenant.id, summary.pk, approved=True)
    assert index_summary(tenant.id, summary.pk) == 1
    result = retrieve(tenant.id, "Do you gift-wrap sneakers?")
    assert not result.no_context
    assert (result.hits[0].title, result.hits[0].source_type) == ("Gift wrapping", "summary")


def test_withdrawing_approval_removes_the_chunks(tenant, summary) -> None:
    set_approval(tenant.id, summary.pk, approved=True)
    index_summary(tenant.id, summary.pk)
    set_approval(tenant.id, summary.pk, approved=False)
    index_summary(tenant.id, summary.pk)
    assert _summary_hits(tenant, "gift-wrap sneakers") == []


def test_stranger_cannot_index_anothers_summary(tenant, stranger, summary) -> None:
    set_approval(tenant.id, summary.pk, approved=True)
    assert index_summary(stranger.id, summary.pk) == 0
    assert _summary_hits(stranger, "gift-wrap sneakers") == []
