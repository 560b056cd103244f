"""Whatever bytes a shop uploads, ingestion ends ready or failed-with-a-reason, never half."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kb.models import Chunk, Document
from tenants.context import tenant_context
from tests.hypothesis_profiles import examples
from tests.kb.files import pdf_bytes

pytestmark = pytest.mark.django_db

VALID_PDF = pdf_bytes([["Refunds", "", "Money back in 3 days."]])
PAYLOADS = st.one_of(
    st.binary(max_size=600),
    st.binary(max_size=300).map(lambda tail: b"%PDF-1.4\n" + tail),
    st.integers(min_value=0, max_value=len(VALID_PDF)).map(lambda cut: VALID_PDF[:cut]),
    st.binary(max_size=200).map(lambda tail: b"PK\x03\x04" + tail),
    st.text(max_size=300).map(str.encode),
)
NAMES = st.sampled_from(["f.pdf", "f.docx", "f.csv", "f.md", "f.txt", "f.bin"])


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=PAYLOADS, name=NAMES)
@example(data=b"\r\x01", name="f.csv")  # once raised csv.Error
def test_any_upload_ends_ready_or_failed_cleanly(tenant, upload, data, name) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 13: Graceful Failure Handling.

    For any uploaded bytes, ingestion never raises and never leaves a partial index: the
    document is ready with its chunks, or failed with a reason and no chunks.
    """
    document = upload(tenant, name, data)
    with tenant_context(tenant.id):
        chunks = Chunk.objects.filter(document=document).count()
    if document.status == Document.Status.READY:
        assert chunks == document.chunk_count > 0
    else:
        assert document.status == Document.Status.FAILED
        assert document.status_reason
        assert "internal error" not in document.status_reason
        assert chunks == 0
