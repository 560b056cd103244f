"""Knowledge gaps: questions the knowledge base could not answer, counted per wording."""

from __future__ import annotations

import re
from uuid import UUID

from django.db import connection

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
    with tenant_context(tenant_id) as tid, connection.cursor() as cursor:
        cursor.execute(_UPSERT, [tid, key, question.strip()[:500]])
