"""A stranger tenant never retrieves, counts or touches another tenant's knowledge."""

from __future__ import annotations

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.models import Chunk
from kb.retrieval import retrieve
from tenants.context import tenant_context
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.django_db

SECRET = b"# Kicks secrets\n\n## Supplier\n\nOur supplier of Air Jordan stock is in Guangzhou.\n"
OWN = b"# Mboga\n\n## Sukuma\n\nSukuma wiki bunches cost KES 30 each at the Kangemi stall.\n"

WORDS = st.sampled_from(
    [
        "supplier",
        "Air",
        "Jordan",
        "Guangzhou",
        "stock",
        "sukuma",
        "bunches",
        "KES",
        "30",
        "ni",
        "wapi",
        "bei",
        "delivery",
        "Kangemi",
        "secrets",
        "Kicks",
    ]
)


@pytest.fixture
def two_shops(tenant, stranger, upload):
    upload(tenant, "secret.md", SECRET)
    upload(stranger, "mboga.md", OWN)
    with tenant_context(tenant.id):
        tenant_chunks = set(Chunk.objects.values_list("id", flat=True))
    return tenant, stranger, tenant_chunks


def test_stranger_asking_for_the_secret_gets_only_its_own_chunks(two_shops) -> None:
    _tenant, stranger, tenant_chunks = two_shops
    result = retrieve(stranger.id, "Who is your Air Jordan supplier in Guangzhou?")
    assert tenant_chunks.isdisjoint({hit.chunk_id for hit in result.hits})
    assert all("Guangzhou" not in hit.text for hit in result.hits)


def test_raw_sql_in_strangers_context_sees_no_foreign_chunk(two_shops) -> None:
    _tenant, stranger, tenant_chunks = two_shops
    with tenant_context(stranger.id), connection.cursor() as cursor:
        cursor.execute("SELECT id FROM kb_chunk")  # no tenant filter: RLS must hold
        seen = {row[0] for row in cursor.fetchall()}
    assert seen
    assert seen.isdisjoint(tenant_chunks)


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(words=st.lists(WORDS, min_size=1, max_size=6), source=st.sampled_from(["", "policy", "doc"]))
def test_any_query_returns_only_the_callers_chunks(two_shops, words, source) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 3: Tenant Isolation Enforcement.

    For any query and source filter, kb retrieval for the stranger returns none of the
    tenant's chunks, and the tenant's own retrieval still finds only its own.
    """
    tenant, stranger, tenant_chunks = two_shops
    query = " ".join(words)
    theirs = {hit.chunk_id for hit in retrieve(stranger.id, query, source_type=source).hits}
    mine = {hit.chunk_id for hit in retrieve(tenant.id, query, source_type=source).hits}
    assert theirs.isdisjoint(tenant_chunks)
    assert mine <= tenant_chunks
