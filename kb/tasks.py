"""Celery entry points: parse ids, call one domain function."""

from __future__ import annotations

from celery import shared_task

from kb.ingest import ingest_document
from kb.summaries import index_summary


@shared_task(name="kb.ingest_document")
def ingest_document_task(tenant_id: str, document_id: int, file_hash: str) -> str:
    return str(ingest_document(tenant_id, document_id, file_hash))


@shared_task(name="kb.index_summary")
def index_summary_task(tenant_id: str, summary_id: int) -> int:
    return index_summary(tenant_id, summary_id)
