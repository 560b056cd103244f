"""The document lifecycle a shop drives: upload, re-upload, re-index and delete.

Each change happens inside the tenant's context and queues ingestion only after the
transaction commits, passing ids and the file hash (never objects).
"""

from __future__ import annotations

import hashlib
from uuid import UUID

from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import transaction

from kb.embedding import kb_embedder
from kb.models import Chunk, Document
from tenants.accessors import get_owned
from tenants.context import tenant_context
from tenants.errors import NotFound


def submit_document(
    tenant_id: UUID | str,
    *,
    title: str,
    kind: str,
    filename: str,
    data: bytes,
    language: str = "",
    queue: bool = True,
) -> Document:
    """Store a new document's file and queue its ingestion (unless the caller ingests)."""
    with tenant_context(tenant_id) as tid:
        document = Document(tenant_id=tid, title=title, kind=kind, language=language)
        document.file.save(filename, ContentFile(data), save=False)
        document.content_hash = hashlib.sha256(data).hexdigest()
        document.save()
        if queue:
            _enqueue(document)
        return document


def replace_file(
    tenant_id: UUID | str, document_id: int, *, filename: str, data: bytes, queue: bool = True
) -> Document:
    """Re-upload: the old chunks keep answering until the new file is fully indexed."""
    new_hash = hashlib.sha256(data).hexdigest()
    with tenant_context(tenant_id) as tid:
        document = _locked(tid, document_id)
        if new_hash == document.content_hash and document.status != Document.Status.FAILED:
            return document  # the same bytes again: nothing to do
        old_name = document.file.name
        document.file.save(filename, ContentFile(data), save=False)
        document.content_hash = new_hash
        _mark_queued(document, queue=queue)
        _remove_file_after_commit(document.file.storage, old_name)
        return document


def queue_ingestion(tenant_id: UUID | str, document_id: int) -> Document:
    """(Re)queue a stored document, e.g. after admin saved a new file or on 'Re-index'."""
    with tenant_context(tenant_id) as tid:
        document = _locked(tid, document_id)
        document.content_hash = file_sha256(document)
        _mark_queued(document)
        return document


def queue_stale(tenant_id: UUID | str) -> int:
    """Queue every document whose chunks were made by another embedder; returns how many."""
    embedder = kb_embedder().name
    with tenant_context(tenant_id) as tid:
        stale = (
            Chunk.objects.filter(tenant_id=tid, document__isnull=False)
            .exclude(embedder=embedder)
            .values_list("document_id", flat=True)
            .distinct()
        )
        ids = sorted(set(stale))
    for document_id in ids:
        queue_ingestion(tenant_id, document_id)
    return len(ids)


def delete_document(tenant_id: UUID | str, document_id: int) -> None:
    """Remove the document, its chunks (cascade) and, once committed, its file."""
    document = get_owned(Document, tenant_id, document_id)
    with tenant_context(tenant_id):
        document.delete()
        _remove_file_after_commit(document.file.storage, document.file.name)


def _locked(tenant_id: UUID, document_id: int) -> Document:
    document = Document.objects.select_for_update().filter(tenant_id=tenant_id, pk=document_id)
    found = document.first()
    if found is None:
        raise NotFound("document not found")  # absent and not-yours look the same
    return found


def file_sha256(document: Document) -> str:
    digest = hashlib.sha256()
    with document.file.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _mark_queued(document: Document, *, queue: bool = True) -> None:
    document.status = Document.Status.QUEUED
    document.status_reason = ""
    document.save()
    if queue:
        _enqueue(document)


def _enqueue(document: Document) -> None:
    from kb.tasks import ingest_document_task

    args = (str(document.tenant_id), document.pk, document.content_hash)
    transaction.on_commit(lambda: ingest_document_task.delay(*args))


def _remove_file_after_commit(storage: Storage, name: str) -> None:
    if name:
        transaction.on_commit(lambda: storage.delete(name))
