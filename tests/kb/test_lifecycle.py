"""Re-upload swaps chunks atomically, delete removes them, and tasks are safe to repeat."""

from __future__ import annotations

import pytest

from kb.documents import delete_document, replace_file
from kb.ingest import Outcome, ingest_document
from kb.models import Chunk, Document
from tenants.context import tenant_context
from tests.kb.conftest import reload

pytestmark = pytest.mark.django_db

V1 = b"# Delivery\n\n## Fees\n\nCBD costs KES 200.\n\n## Times\n\nSame day before 2 pm.\n"
V2 = b"# Delivery\n\n## Fees\n\nCBD costs KES 300.\n\n## Times\n\nSame day before 2 pm.\n"


def _texts(tenant, document_id: int) -> list[str]:
    with tenant_context(tenant.id):
        rows = Chunk.objects.filter(document_id=document_id).order_by("position")
        return [row.text for row in rows]


def _reupload(tenant, document: Document, data: bytes, filename: str = "d.md") -> Document:
    return replace_file(tenant.id, document.pk, filename=filename, data=data)


def test_old_chunks_answer_until_the_new_file_is_indexed(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    queued = _reupload(tenant, document, V2)
    assert reload(tenant, document.pk).status == Document.Status.QUEUED
    assert "CBD costs KES 200." in _texts(tenant, document.pk)
    assert ingest_document(tenant.id, document.pk, queued.content_hash) == Outcome.READY
    assert _texts(tenant, document.pk) == ["CBD costs KES 300.", "Same day before 2 pm."]


def test_unchanged_chunks_are_not_embedded_again(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    assert document.embedded_count == 2
    queued = _reupload(tenant, document, V2)
    ingest_document(tenant.id, document.pk, queued.content_hash)
    assert reload(tenant, document.pk).embedded_count == 1  # only the changed "Fees" chunk


def test_failed_reupload_keeps_the_previous_version(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    queued = _reupload(tenant, document, b"", filename="d.md")
    ingest_document(tenant.id, document.pk, queued.content_hash)
    failed = reload(tenant, document.pk)
    assert failed.status == Document.Status.FAILED
    assert "previously indexed version is still in use" in failed.status_reason
    assert _texts(tenant, document.pk) == ["CBD costs KES 200.", "Same day before 2 pm."]


def test_running_the_task_twice_changes_nothing(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    with tenant_context(tenant.id):
        before = list(Chunk.objects.filter(document=document).values_list("id", flat=True))
    assert ingest_document(tenant.id, document.pk, document.content_hash) == Outcome.SKIPPED
    with tenant_context(tenant.id):
        after = list(Chunk.objects.filter(document=document).values_list("id", flat=True))
    assert before == after


def test_task_for_a_superseded_file_does_nothing(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    _reupload(tenant, document, V2)
    assert ingest_document(tenant.id, document.pk, document.content_hash) == Outcome.SKIPPED
    assert reload(tenant, document.pk).status == Document.Status.QUEUED


def test_delete_removes_the_chunks(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    delete_document(tenant.id, document.pk)
    with tenant_context(tenant.id):
        assert not Document.objects.filter(pk=document.pk).exists()
        assert not Chunk.objects.filter(document_id=document.pk).exists()


def test_task_for_a_deleted_document_is_skipped(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    delete_document(tenant.id, document.pk)
    assert ingest_document(tenant.id, document.pk, document.content_hash) == Outcome.SKIPPED


def test_stranger_cannot_ingest_or_delete_anothers_document(tenant, stranger, upload) -> None:
    from tenants.errors import NotFound

    document = upload(tenant, "d.md", V1)
    assert ingest_document(stranger.id, document.pk, document.content_hash) == Outcome.SKIPPED
    with pytest.raises(NotFound):
        delete_document(stranger.id, document.pk)
    assert len(_texts(tenant, document.pk)) == 2


def test_celery_task_runs_the_ingestion(tenant) -> None:
    from kb.documents import submit_document
    from kb.tasks import ingest_document_task

    document = submit_document(tenant.id, title="d", kind="doc", filename="d.md", data=V1)
    outcome = ingest_document_task.apply(args=(str(tenant.id), document.pk, document.content_hash))
    assert outcome.get() == "ready"
    assert reload(tenant, document.pk).chunk_count == 2


def test_changing_the_embedder_re_embeds_everything(tenant, upload) -> None:
    document = upload(tenant, "d.md", V1)
    with tenant_context(tenant.id):
        Chunk.objects.filter(document=document).update(embedder="an-older-embedder")
    assert ingest_document(tenant.id, document.pk, document.content_hash) == Outcome.READY
    refreshed = reload(tenant, document.pk)
    assert refreshed.embedded_count == 2
    with tenant_context(tenant.id):
        assert not Chunk.objects.filter(embedder="an-older-embedder").exists()


def test_queue_stale_requeues_documents_of_an_old_embedder(
    tenant, stranger, upload, django_capture_on_commit_callbacks
) -> None:
    from kb.documents import queue_stale

    old = upload(tenant, "old.md", V1)
    upload(tenant, "current.md", V2)
    upload(stranger, "theirs.md", V1)
    with tenant_context(tenant.id):
        Chunk.objects.filter(document=old).update(embedder="an-older-embedder")
    with django_capture_on_commit_callbacks() as callbacks:
        assert queue_stale(tenant.id) == 1
    assert len(callbacks) == 1
    assert reload(tenant, old.pk).status == Document.Status.QUEUED
    assert queue_stale(stranger.id) == 0


def test_stranger_cannot_replace_anothers_file(tenant, stranger, upload) -> None:
    from tenants.errors import NotFound

    document = upload(tenant, "d.md", V1)
    with pytest.raises(NotFound):
        replace_file(stranger.id, document.pk, filename="d.md", data=V2)
    assert reload(tenant, document.pk).content_hash == document.content_hash
