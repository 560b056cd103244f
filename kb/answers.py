"""Retrieval as the support journey uses it: find context, and log what had none."""

from __future__ import annotations

from uuid import UUID

from kb.gaps import record_gap
from kb.retrieval import Retrieval, retrieve


def find_context(
    tenant_id: UUID | str, question: str, *, source_type: str = "", top_k: int | None = None
) -> Retrieval:
    result = retrieve(tenant_id, question, source_type=source_type, top_k=top_k)
    if result.no_context:
        record_gap(tenant_id, question)
    return result
