"""kb_retrieve: the tenant's knowledge-base passages for a support question, or NO_CONTEXT.

The answer node must cite `title` and `section` of the hits it uses, and must not answer
from general knowledge when `no_context` is true (the question is logged as a gap).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kb.answers import find_context
from kb.models import MAX_TOP_K
from tools.contract import Tool, ToolInput, ToolOutput

SourceFilter = Literal["policy", "faq", "doc", "sop", "summary"]


class KbRetrieveInput(ToolInput):
    query: str = Field(min_length=1, max_length=1000)
    source_type: SourceFilter | None = None
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K)


class KbHit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    section: str
    document_type: str
    score: float
    text: str
    chunk_id: int


class KbRetrieveOutput(ToolOutput):
    no_context: bool
    reason: str
    hits: list[KbHit]


def run(data: KbRetrieveInput) -> KbRetrieveOutput:
    result = find_context(
        data.tenant_id, data.query, source_type=data.source_type or "", top_k=data.top_k
    )
    hits = [
        KbHit(
            title=h.title,
            section=h.section,
            document_type=h.source_type,
            score=h.score,
            text=h.text,
            chunk_id=h.chunk_id,
        )
        # Weak passages are withheld so a NO_CONTEXT answer cannot lean on them.
        for h in ([] if result.no_context else result.hits)
    ]
    return KbRetrieveOutput(no_context=result.no_context, reason=result.reason, hits=hits)


TOOL = Tool(
    name="kb_retrieve",
    description=(
        "Search the shop's own policies, FAQs and guides for a customer's support question. "
        "Answer only from the returned passages and cite their titles; if no_context is "
        "true, say you don't know and offer a human."
    ),
    input_model=KbRetrieveInput,
    output_model=KbRetrieveOutput,
    run=run,
)
