"""kb_retrieve on the shared tool contract: typed output, refusals, gaps, audit."""

from __future__ import annotations

import uuid

import pytest

from kb.models import KnowledgeGap
from tenants.context import tenant_context
from tools import registry
from tools.models import ToolCall
from tools.runner import call_tool

pytestmark = pytest.mark.django_db

DOC = b"# Hours\n\n## Weekdays\n\nWe open Monday to Friday from 8 am to 7 pm.\n"


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    # tools/registry.py lists kb_retrieve; pinned here so these tests do not depend on it.
    monkeypatch.setitem(registry.TOOL_MODULES, "kb_retrieve", "kb.tools.kb_retrieve")
    registry.get_tool.cache_clear()
    yield
    registry.get_tool.cache_clear()


def _payload(tenant, query: str, **extra) -> dict:
    return {"tenant_id": str(tenant.id), "request_id": "req-1", "query": query, **extra}


def test_answer_comes_with_title_section_type_and_score(tenant, upload) -> None:
    upload(tenant, "hours.md", DOC, title="Opening hours", kind="doc")
    result = call_tool("kb_retrieve", _payload(tenant, "What time do you open on Monday?"))
    assert result.ok, result.error
    hit = result.output.hits[0]
    assert (hit.title, hit.section, hit.document_type) == (
        "Opening hours",
        "Hours > Weekdays",
        "doc",
    )
    assert result.output.no_context is False
    assert 0 < hit.score <= 1


def test_no_context_withholds_passages_and_records_a_gap(tenant, upload) -> None:
    upload(tenant, "hours.md", DOC)
    result = call_tool("kb_retrieve", _payload(tenant, "Do you sell gift vouchers?"))
    assert result.ok
    assert result.output.no_context is True
    assert result.output.hits == []
    with tenant_context(tenant.id):
        assert KnowledgeGap.objects.get().count == 1
        assert ToolCall.objects.filter(tool="kb_retrieve").count() == 1


def test_top_k_above_eight_is_invalid_input(tenant) -> None:
    result = call_tool("kb_retrieve", _payload(tenant, "hours", top_k=9))
    assert not result.ok
    assert result.error.code == "invalid_input"


def test_unknown_source_type_is_invalid_input(tenant) -> None:
    result = call_tool("kb_retrieve", _payload(tenant, "hours", source_type="secret"))
    assert result.error.code == "invalid_input"


def test_other_tenants_id_inside_a_context_is_refused(tenant, stranger, upload) -> None:
    upload(tenant, "hours.md", DOC)
    with tenant_context(stranger.id):
        result = call_tool("kb_retrieve", _payload(tenant, "When do you open?"))
    assert result.error.code == "tenant_mismatch"
    with tenant_context(tenant.id):
        assert not KnowledgeGap.objects.exists()


def test_unknown_tenant_is_not_found(db) -> None:
    payload = {"tenant_id": str(uuid.uuid4()), "request_id": "r", "query": "hours"}
    assert call_tool("kb_retrieve", payload).error.code == "not_found"
