"""Hybrid retrieval: vector and full-text candidates, fused by reciprocal rank, judged.

Ranking uses reciprocal rank fusion of three lists (vector, full-text, and the share of
the question's rare words a chunk contains) because their scores are on different
scales. Fusion scores say nothing absolute, though (the best hit always ranks first), so
the NO_CONTEXT verdict uses a separate absolute relevance per hit: cosine similarity
blended with that word coverage, judged against the tenant's thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from kb import candidates, query_text
from kb.embedding import kb_embedder
from kb.models import MAX_TOP_K, KbSettings
from tenants.accessors import tenant_scope

VECTOR_WEIGHT = 0.6  # of the absolute score; the rest is the question's word coverage


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    title: str
    section: str
    source_type: str
    text: str
    score: float  # absolute relevance in [0, 1]
    document_id: int | None
    summary_id: int | None


@dataclass(frozen=True)
class Thresholds:
    top_k: int = 5
    min_hits: int = 1
    min_best_score: float = 0.275
    min_mean_score: float = 0.0


@dataclass(frozen=True)
class Retrieval:
    hits: list[Hit]
    no_context: bool
    reason: str
    thresholds: Thresholds = field(default_factory=Thresholds)


def thresholds_for(tenant_id: UUID) -> Thresholds:
    row = KbSettings.objects.filter(tenant_id=tenant_id).first()
    if row is None:
        return Thresholds()
    return Thresholds(row.top_k, row.min_hits, row.min_best_score, row.min_mean_score)


def retrieve(
    tenant_id: UUID | str, query: str, *, source_type: str = "", top_k: int | None = None
) -> Retrieval:
    """The tenant's best chunks for `query` and whether they are enough to answer from."""
    groups = query_text.term_groups(query)
    widened = " ".join(word for group in groups for word in group[1:])
    vector = kb_embedder().embed([f"{query} {widened}".strip()])[0]
    with tenant_scope(tenant_id) as tid:  # joined when kb_retrieve's runner opened it
        limits = thresholds_for(tid)
        k = max(1, min(top_k or limits.top_k, MAX_TOP_K))
        found, weights = candidates.fetch(tid, kb_embedder().name, vector, groups, source_type)
        hits = _hits(found, groups, weights, k)
    verdict = judge(hits, limits)
    return Retrieval(hits=hits, no_context=bool(verdict), reason=verdict, thresholds=limits)


def _hits(
    found: list[candidates.Candidate],
    groups: list[tuple[str, ...]],
    weights: list[float],
    k: int,
) -> list[Hit]:
    scored = [(cand, cand.row, _lexical(cand.row, groups, weights)) for cand in found]
    # The question's word coverage is a third ranked list in the fusion, next to the
    # vector and full-text ranks: it is the one that knows which words are rare.
    for rank, (cand, _row, _lex) in enumerate(sorted(scored, key=lambda s: -s[2]), start=1):
        cand.rrf += 1 / (candidates.RRF_K + rank)
    best_per_section: dict[tuple[object, ...], Hit] = {}
    for cand, row, lexical in sorted(scored, key=lambda s: -s[0].rrf):
        key = (row["document_id"], row["summary_id"], row["section_path"])
        if key not in best_per_section:  # one hit per section: the best-fused chunk
            best_per_section[key] = _hit(row, cand.cosine, lexical)
    return list(best_per_section.values())[:k]


def _lexical(row: Mapping[str, Any], groups: list[tuple[str, ...]], weights: list[float]) -> float:
    searchable = f"{row['title']} {row['section_path']} {row['text']}"
    return query_text.coverage(groups, searchable, weights)


def _hit(row: Mapping[str, Any], cosine: float, lexical: float) -> Hit:
    score = VECTOR_WEIGHT * max(0.0, cosine) + (1 - VECTOR_WEIGHT) * lexical
    return Hit(
        chunk_id=int(row["id"]),
        title=str(row["title"]),
        section=str(row["section_path"]),
        source_type=str(row["source_type"]),
        text=str(row["text"]),
        score=round(min(1.0, score), 4),
        document_id=row["document_id"],
        summary_id=row["summary_id"],
    )


def judge(hits: list[Hit], limits: Thresholds) -> str:
    """Why the hits are not enough to answer from, or "" when they are."""
    if not hits:
        return "no passage in the knowledge base matches"
    if len(hits) < limits.min_hits:
        return f"{len(hits)} hit(s), fewer than the minimum {limits.min_hits}"
    best = max(hit.score for hit in hits)
    if best < limits.min_best_score:
        return f"best score {best:.2f} is below {limits.min_best_score:.2f}"
    mean = sum(hit.score for hit in hits) / len(hits)
    if mean < limits.min_mean_score:
        return f"mean score {mean:.2f} is below {limits.min_mean_score:.2f}"
    return ""
