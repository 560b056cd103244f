"""Approved conversation summaries: the second source the knowledge base answers from.

Only a summary the shop approved is searchable; withdrawing approval removes its chunks.
"""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.utils import timezone

from kb import indexing
from kb.chunking import chunk
from kb.models import Chunk, ConversationSummary, SourceType
from tenants.context import tenant_context


def set_approval(tenant_id: UUID | str, summary_id: int, *, approved: bool) -> ConversationSummary:
    with tenant_context(tenant_id) as tid:
        summary = ConversationSummary.objects.select_for_update().get(tenant_id=tid, pk=summary_id)
        summary.approved = approved
        summary.approved_at = timezone.now() if approved else None
        summary.save(update_fields=["approved", "approved_at"])
        queue_indexing(summary)
        return summary


def queue_indexing(summary: ConversationSummary) -> None:
    from kb.tasks import index_summary_task

    args = (str(summary.tenant_id), summary.pk)
    transaction.on_commit(lambda: index_summary_task.delay(*args))


def index_summary(tenant_id: UUID | str, summary_id: int) -> int:
    """Make the summary's chunks match its approval; returns how many chunks it has."""
    with tenant_context(tenant_id) as tid:
        summary = ConversationSummary.objects.filter(tenant_id=tid, pk=summary_id).first()
        if summary is None or not summary.approved:
            Chunk.objects.filter(tenant_id=tid, summary_id=summary_id).delete()
            return 0
        title, text = summary.title, summary.text
    the_plan = indexing.plan(tenant_id, title, chunk(text))
    with tenant_context(tenant_id) as tid:
        summary = ConversationSummary.objects.select_for_update().filter(pk=summary_id).first()
        if (
            summary is None
            or not summary.approved
            or (summary.title, summary.text) != (title, text)
        ):
            return 0  # changed while embedding; the save that changed it queued another run
        return indexing.write_chunks(
            tid, the_plan, title=title, source_type=SourceType.SUMMARY, summary=summary
        )
