"""Ingest one uploaded document: extract, chunk, embed, swap its chunks; or fail cleanly.

Safe to run twice and safe against a newer upload: every step names the file hash it
was queued for, and a run whose hash is no longer the document's does nothing.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from uuid import UUID

from django.utils import timezone

from kb import indexing, limits
from kb.chunking import ChunkDraft, chunk
from kb.embedding import kb_embedder
from kb.extract import ExtractionError, extract
from kb.models import Chunk, Document
from tenants.context import tenant_context

logger = logging.getLogger("tulia.kb")


class Outcome(StrEnum):
    READY = "ready"
    FAILED = "failed"
    SKIPPED = "skipped"


def ingest_document(tenant_id: UUID | str, document_id: int, file_hash: str) -> Outcome:
    document = _begin(tenant_id, document_id, file_hash)
    if document is None:
        return Outcome.SKIPPED
    try:
        drafts, pages = _prepare(document)
        the_plan = indexing.plan(tenant_id, document.title, drafts)
    except ExtractionError as exc:
        return _fail(tenant_id, document_id, file_hash, str(exc))
    except Exception as exc:  # embedder or storage trouble: report it, keep the old chunks
        logger.exception("kb ingestion of document %s failed", document_id)
        return _fail(tenant_id, document_id, file_hash, f"internal error ({type(exc).__name__})")
    return _commit(tenant_id, document_id, file_hash, the_plan, pages)


def _begin(tenant_id: UUID | str, document_id: int, file_hash: str) -> Document | None:
    with tenant_context(tenant_id) as tid:
        document = (
            Document.objects.select_for_update().filter(tenant_id=tid, pk=document_id).first()
        )
        if document is None or document.content_hash != file_hash:
            return None  # deleted, or superseded by a newer upload with its own task
        if document.status == Document.Status.READY and _is_current(document):
            return None  # already indexed with this file and this embedder
        document.status = Document.Status.PROCESSING
        document.save(update_fields=["status", "updated_at"])
        return document


def _is_current(document: Document) -> bool:
    if document.indexed_hash != document.content_hash:
        return False
    stale = Chunk.objects.filter(tenant_id=document.tenant_id, document=document).exclude(
        embedder=kb_embedder().name
    )
    return not stale.exists()


def _prepare(document: Document) -> tuple[list[ChunkDraft], int]:
    if document.file.size > limits.max_upload_bytes():
        mib = limits.max_upload_bytes() / (1024 * 1024)
        raise ExtractionError(f"the file is larger than the {mib:g} MB limit")
    with document.file.open("rb") as handle:
        data = handle.read()
    extracted = extract(document.file.name, data)
    if len(extracted.text) > limits.MAX_TEXT_CHARS:
        raise ExtractionError("the document has too much text; split it into smaller files")
    drafts = chunk(extracted.text)
    if not drafts:
        raise ExtractionError("no text found in the file after cleaning")
    return drafts, extracted.pages


def _commit(
    tenant_id: UUID | str, document_id: int, file_hash: str, the_plan: indexing.Plan, pages: int
) -> Outcome:
    with tenant_context(tenant_id) as tid:
        document = (
            Document.objects.select_for_update().filter(tenant_id=tid, pk=document_id).first()
        )
        if document is None or document.content_hash != file_hash:
            return Outcome.SKIPPED
        count = indexing.write_chunks(
            tid, the_plan, title=document.title, source_type=document.kind, document=document
        )
        Document.objects.filter(pk=document_id).update(
            status=Document.Status.READY,
            status_reason="",
            indexed_hash=file_hash,
            pages=pages,
            chunk_count=count,
            embedded_count=the_plan.embedded,
            processed_at=timezone.now(),
            updated_at=timezone.now(),
        )
    return Outcome.READY


def _fail(tenant_id: UUID | str, document_id: int, file_hash: str, reason: str) -> Outcome:
    with tenant_context(tenant_id) as tid:
        document = (
            Document.objects.select_for_update().filter(tenant_id=tid, pk=document_id).first()
        )
        if document is None or document.content_hash != file_hash:
            return Outcome.SKIPPED
        if document.chunk_count:
            reason = f"{reason}; the previously indexed version is still in use"
        Document.objects.filter(pk=document_id).update(
            status=Document.Status.FAILED,
            status_reason=reason[:500],
            processed_at=timezone.now(),
            updated_at=timezone.now(),
        )
    return Outcome.FAILED
