"""Knowledge gaps: questions the knowledge base could not answer, counted per wording."""

from __future__ import annotations

import re
from uuid import UUID

from django.db import connection

from tenants.accessors import tenant_scope
from tenants.context import tenant_context

_UPSERT = """
INSERT INTO kb_knowledgegap (tenant_id, question_key, question, count, first_asked_at,
                             last_asked_at)
VALUES (%s, %s, %s, 1, now(), now())
ON CONFLICT (tenant_id, question_key) DO UPDATE
SET count = kb_knowledgegap.count + 1, last_asked_at = now(), question = EXCLUDED.question
"""


def question_key(question: str) -> str:
    """Same question, different punctuation or case: one gap."""
    return " ".join(re.findall(r"[^\W_]+", question.lower()))[:300]


def record_gap(tenant_id: UUID | str, question: str) -> None:
    key = question_key(question)
    if not key:
        return
    # One statement: joins the caller's open context (the kb tool's) without a savepoint.
    with tenant_scope(tenant_id) as tid, connection.cursor() as cursor:
        cursor.execute(_UPSERT, [tid, key, question.strip()[:500]])


def answer_gap(tenant_id: UUID | str, gap_id: int, answer: str) -> int:
    """The shop answers a gap: the answer becomes an approved knowledge entry (the same
    entry again if this question was answered before) and the gap is closed."""
    from django.db import transaction
    from django.utils import timezone

    from kb.models import ConversationSummary, KnowledgeGap
    from kb.summaries import queue_indexing

    answer = answer.strip()
    if not answer:
        raise ValueError("write the answer first")
    with transaction.atomic(), tenant_context(tenant_id) as tid:
        gap = KnowledgeGap.objects.select_for_update().get(tenant_id=tid, pk=gap_id)
        entry, _created = ConversationSummary.objects.update_or_create(
            tenant_id=tid,
            conversation_ref=f"gap:{gap.question_key}"[:64],
            defaults={
                "title": gap.question[:200],
                "text": answer,
                "approved": True,
                "approved_at": timezone.now(),
            },
        )
        queue_indexing(entry)
        gap.delete()
        return entry.pk
