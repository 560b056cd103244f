"""Knowledge gaps answered in place: the answer becomes an approved knowledge entry."""

from __future__ import annotations

import pytest
from django.urls import reverse

from kb.gaps import record_gap
from kb.models import ConversationSummary, KnowledgeGap
from tenants.context import tenant_context
from tests.console.conftest import login

pytestmark = pytest.mark.django_db


def _gap(tenant, question: str) -> KnowledgeGap:
    record_gap(tenant.id, question)
    with tenant_context(tenant.id):
        return KnowledgeGap.objects.get(question=question)


def test_owner_answers_a_gap_and_it_becomes_knowledge(tenant, stranger) -> None:
    gap = _gap(tenant, "Do you deliver to Kisumu?")
    client = login(tenant, "owner_g")
    listing = client.get(reverse("admin:kb_knowledgegap_changelist")).content.decode()
    url = reverse("admin:kb_knowledgegap_answer", args=[gap.pk])
    assert url in listing
    response = client.post(url, {"answer": "Yes, by G4S in 2 days, KES 400."})
    assert response.status_code == 302
    with tenant_context(tenant.id):
        entry = ConversationSummary.objects.get()
        assert (entry.title, entry.approved) == ("Do you deliver to Kisumu?", True)
        assert not KnowledgeGap.objects.exists()
    with tenant_context(stranger.id):
        assert not ConversationSummary.objects.exists()


def test_the_same_question_again_edits_the_same_entry(tenant, stranger) -> None:
    client = login(tenant, "owner_g2")
    for answer in ("KES 400.", "KES 350 now."):
        gap = _gap(tenant, "Delivery to Kisumu?")
        client.post(reverse("admin:kb_knowledgegap_answer", args=[gap.pk]), {"answer": answer})
    with tenant_context(tenant.id):
        assert list(ConversationSummary.objects.values_list("text", flat=True)) == ["KES 350 now."]


def test_an_agent_cannot_answer(tenant, stranger) -> None:
    gap = _gap(tenant, "Mna viatu size 45?")
    client = login(tenant, "agent_g", "agent")
    url = reverse("admin:kb_knowledgegap_answer", args=[gap.pk])
    assert client.post(url, {"answer": "Ndio"}).status_code == 403


def test_another_shop_cannot_answer(tenant, stranger) -> None:
    gap = _gap(tenant, "Open on Sunday?")
    url = reverse("admin:kb_knowledgegap_answer", args=[gap.pk])
    assert login(stranger, "owner_g3").post(url, {"answer": "x"}).status_code == 404
