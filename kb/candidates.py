"""One SQL round trip for a question: vector and full-text candidates with their text,
and how common each of the question's words is in the tenant's knowledge base.

Both searches run over one tenant's chunks only (tenant filter in SQL, RLS underneath)
and are exact: a tenant has thousands of chunks, not millions, and pgvector's HNSW
filters after its approximate search, which would lose a small tenant's rows among a
million others. The materialised scope makes that plan explicit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import connection

from kb import query_text

RRF_K = 60
CANDIDATES = 24
_FIELDS = ("id", "title", "section_path", "source_type", "text", "document_id", "summary_id")

_SQL = """
WITH scope AS MATERIALIZED (
    SELECT id, embedding, search_vector FROM kb_chunk
    WHERE tenant_id = %(tenant)s AND embedder = %(embedder)s
      AND (%(source)s = '' OR source_type = %(source)s)
), vec AS (
    SELECT id, 1 - (embedding <=> %(vector)s::vector) AS cosine,
           row_number() OVER (ORDER BY embedding <=> %(vector)s::vector) AS rnk
    FROM scope ORDER BY embedding <=> %(vector)s::vector LIMIT %(n)s
), fts AS (
    SELECT id, row_number() OVER (
        ORDER BY ts_rank_cd(search_vector, to_tsquery('simple', %(tsq)s)) DESC, id) AS rnk
    FROM scope
    WHERE %(tsq)s <> '' AND search_vector @@ to_tsquery('simple', %(tsq)s)
    ORDER BY rnk LIMIT %(n)s
), stats AS MATERIALIZED (
    SELECT count(*) AS total, ARRAY[{document_frequencies}]::bigint[] AS dfs FROM scope
), fused AS (
    SELECT coalesce(vec.id, fts.id) AS id, vec.cosine, vec.rnk AS vrank, fts.rnk AS frank
    FROM vec FULL OUTER JOIN fts ON vec.id = fts.id
)
SELECT fused.cosine, fused.vrank, fused.frank, stats.total, stats.dfs,
       c.id, c.title, c.section_path, c.source_type, c.text, c.document_id, c.summary_id
FROM fused JOIN kb_chunk c ON c.id = fused.id AND c.tenant_id = %(tenant)s CROSS JOIN stats
"""
_DF = "count(*) FILTER (WHERE search_vector @@ to_tsquery('simple', %(g{n})s))"


@dataclass
class Candidate:
    row: dict[str, Any]
    cosine: float
    rrf: float


def fetch(
    tenant_id: UUID,
    embedder: str,
    vector: list[float],
    groups: list[tuple[str, ...]],
    source: str,
) -> tuple[list[Candidate], list[float]]:
    """Candidates with reciprocal-rank-fused scores, and each query word's IDF weight."""
    params: dict[str, Any] = {
        "tenant": tenant_id,
        "embedder": embedder,
        "source": source,
        "vector": "[" + ",".join(f"{v:.7f}" for v in vector) + "]",
        "tsq": query_text.tsquery(word for group in groups for word in group),
        "n": CANDIDATES,
    }
    params.update({f"g{n}": query_text.tsquery(group) for n, group in enumerate(groups)})
    frequencies = ", ".join(_DF.format(n=n) for n in range(len(groups)))
    with connection.cursor() as cursor:
        cursor.execute(_SQL.format(document_frequencies=frequencies), params)
        rows = cursor.fetchall()
    candidates = [
        Candidate(
            dict(zip(_FIELDS, row[5:], strict=True)),
            float(row[0] or 0.0),
            _rrf(row[1]) + _rrf(row[2]),
        )
        for row in rows
    ]
    return candidates, (_idf(rows[0][3], rows[0][4]) if rows else [])


def _rrf(rank: int | None) -> float:
    return 1 / (RRF_K + rank) if rank else 0.0


def _idf(total: int, frequencies: list[int]) -> list[float]:
    """Rare words weigh more: a word every chunk has (the shop's name) says little."""
    return [math.log((total + 1) / (df + 0.5)) for df in frequencies]
