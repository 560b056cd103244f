"""The demo shops get their policies and guides in English and Swahili, idempotently."""

from __future__ import annotations

import pytest

from kb.demo import seed_documents
from kb.models import Document
from kb.retrieval import retrieve
from tenants.context import tenant_context
from tenants.demo import seed_tenants

pytestmark = pytest.mark.django_db


def _documents(tenant) -> list[tuple[str, str, str]]:
    with tenant_context(tenant.id):
        return sorted(Document.objects.values_list("title", "language", "status"))


def test_seeding_twice_gives_the_same_ready_documents(settings, tmp_path) -> None:
    tenants = seed_tenants()
    seed_documents(tenants)
    first = {t.slug: _documents(t) for t in tenants}
    seed_documents(tenants)
    assert {t.slug: _documents(t) for t in tenants} == first
    for docs in first.values():
        assert len(docs) == 10
        assert {lang for _, lang, _ in docs} == {"en", "sw"}
        assert {status for _, _, status in docs} == {"ready"}


def test_demo_shops_answer_from_their_own_documents(settings, tmp_path) -> None:
    kicks, mboga = seed_tenants()
    seed_documents([kicks, mboga])
    paybill = retrieve(kicks.id, "What is your Paybill number?")
    assert "512900" in paybill.hits[0].text
    till = retrieve(mboga.id, "Till namba yenu ni ipi?")
    assert "734455" in till.hits[0].text
    assert all("512900" not in hit.text for hit in till.hits)
