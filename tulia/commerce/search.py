"""Catalog search: full-text + pgvector similarity, fused by reciprocal rank, filtered.

Both retrievers run on the same filtered, tenant-scoped set of active items. A query
with no words is a browse of the filtered set. At most MAX_RESULTS come back, with an
estimate of how many matched and a confidence the graph uses to fall back to the
catalog link (SPEC §5.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from uuid import UUID

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Subquery
from pgvector.django import CosineDistance

from tenants.context import tenant_context
from tulia.commerce.lexicon import expand_groups
from tulia.commerce.models import CatalogItem, Variant
from tulia.embeddings import get_embedder

MAX_RESULTS = 6
CANDIDATES = 40
RRF_K = 60
ESTIMATE_CAP = 1000
LOOSE_SAMPLE = 2000
# With ~1/N of the index belonging to one tenant, HNSW must look wider to keep
# CANDIDATES after the tenant filter (pgvector 0.6 has no iterative scans).
HNSW_EF_SEARCH = 200
# Cosine similarity above which a vector-only hit counts as a match in the estimate.
SIMILAR_ENOUGH = 0.35
# Below this a vector "neighbour" shares only stray character n-grams: not a result.
MIN_SIMILARITY = 0.12


@dataclass(frozen=True)
class SearchFilters:
    category: str | None = None
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    in_stock: bool = False
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    item: CatalogItem
    score: float
    text_match: bool
    similarity: float


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    total_estimate: int
    confidence: float


def _filtered(tenant_id: UUID, filters: SearchFilters) -> QuerySet[CatalogItem]:
    items = CatalogItem.objects.filter(tenant_id=tenant_id, is_active=True)
    if filters.category:
        wanted = filters.category.strip()
        items = items.filter(
            Q(category__slug__iexact=wanted)
            | Q(category__name__iexact=wanted)
            | Q(category__parent__slug__iexact=wanted)
        )
    if filters.min_price is not None:
        items = items.filter(price__gte=filters.min_price)
    if filters.max_price is not None:
        items = items.filter(price__lte=filters.max_price)
    if filters.in_stock:
        items = items.filter(in_stock=True)
    variants = Variant.objects.filter(item=OuterRef("pk"), is_active=True)
    for key, value in filters.attributes.items():
        pair = {key: value}
        items = items.filter(
            Q(attributes__contains=pair) | Exists(variants.filter(attributes__contains=pair))
        )
    return items


def _tsquery(groups: list[list[str]], *, every: bool) -> SearchQuery:
    """every=True: each word (or one of its equivalents) must match; else any word may.

    Words are [a-z0-9]+ only (normalised), so the raw syntax cannot be injected.
    """
    joined = [" | ".join(f"{word}:*" for word in group) for group in groups]
    raw = " & ".join(f"({part})" for part in joined) if every else " | ".join(joined)
    return SearchQuery(raw, search_type="raw", config="simple")


def _ranked(items: QuerySet[CatalogItem], query: SearchQuery) -> list[int]:
    ranked = (
        items.filter(search_vector=query)
        .annotate(rank=SearchRank(F("search_vector"), query))
        .order_by("-rank", "id")
        .values_list("id", flat=True)
    )
    return list(ranked[:CANDIDATES])


def _text_ranked(items: QuerySet[CatalogItem], groups: list[list[str]]) -> list[int]:
    """Items matching every word first; if too few, the best of those matching any word.

    The any-word pass ranks a bounded sample so a common word ("air") cannot make it
    rank a whole catalog. It is what rescues most typos at scale (bench: typo hit@6
    0/13 without it at 100k items per shop), so it stays despite its second scan.
    """
    strict = _ranked(items, _tsquery(groups, every=True))
    if len(strict) >= MAX_RESULTS or len(groups) < 2:
        return strict
    loose = _tsquery(groups, every=False)
    sample = items.filter(search_vector=loose).values("id")[:LOOSE_SAMPLE]
    extra = _ranked(CatalogItem.objects.filter(pk__in=Subquery(sample)), loose)
    return strict + [pk for pk in extra if pk not in set(strict)]


def _vector_ranked(
    tenant_id: UUID, items: QuerySet[CatalogItem], text: str
) -> list[tuple[int, float]]:
    """Nearest items by embedding. The index scan sees only tenant conditions (so the
    planner keeps using HNSW); the structured filters are applied to the candidates."""
    embedder = get_embedder()
    vector = embedder.embed([text])[0]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [HNSW_EF_SEARCH])
    nearest = list(
        CatalogItem.objects.filter(
            tenant_id=tenant_id, is_active=True, embedding_model=embedder.name
        )
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")
        .values_list("id", "distance")[:CANDIDATES]
    )
    allowed = set(items.filter(pk__in=[pk for pk, _ in nearest]).values_list("id", flat=True))
    scored = [(pk, 1.0 - float(distance)) for pk, distance in nearest if pk in allowed]
    return [(pk, similarity) for pk, similarity in scored if similarity >= MIN_SIMILARITY]


def _fuse(text_ids: list[int], vector_hits: list[tuple[int, float]]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for rank, pk in enumerate(text_ids):
        scores[pk] = scores.get(pk, 0.0) + 1.0 / (RRF_K + rank + 1)
    for rank, (pk, _) in enumerate(vector_hits):
        scores[pk] = scores.get(pk, 0.0) + 1.0 / (RRF_K + rank + 1)
    return scores


def _estimate(
    items: QuerySet[CatalogItem], groups: list[list[str]], text_ids: list[int], similar: int
) -> int:
    """Counting costs a scan, so only when the ranked text matches filled their cap."""
    strict = len(text_ids)
    if strict >= CANDIDATES:
        strict = items.filter(search_vector=_tsquery(groups, every=True))[:ESTIMATE_CAP].count()
    return max(strict, similar)


def confidence(top: Hit | None) -> float:
    """Half from the vector similarity of the best hit, half from it matching the words."""
    if top is None:
        return 0.0
    semantic = min(1.0, max(0.0, (top.similarity - 0.1) / 0.4))
    return round(0.5 * semantic + (0.5 if top.text_match else 0.0), 2)


def _browse(items: QuerySet[CatalogItem]) -> SearchResult:
    browse = list(items.select_related("category").order_by("name", "id")[:MAX_RESULTS])
    hits = [Hit(item, 0.0, False, 0.0) for item in browse]
    return SearchResult(hits, items[:ESTIMATE_CAP].count(), 0.5 if hits else 0.0)


def search_catalog(
    tenant_id: UUID | str, query: str, filters: SearchFilters | None = None
) -> SearchResult:
    groups = expand_groups(query)
    with tenant_context(tenant_id) as tid:
        items = _filtered(tid, filters or SearchFilters())
        if not groups:
            return _browse(items)
        vector_hits = _vector_ranked(tid, items, " ".join(w for g in groups for w in g))
        text_ids = _text_ranked(items, groups)
        scores = _fuse(text_ids, vector_hits)
        best = sorted(scores, key=lambda pk: (-scores[pk], pk))[:MAX_RESULTS]
        loaded = CatalogItem.objects.select_related("category").in_bulk(best)
        similarity = dict(vector_hits)
        in_text = set(text_ids)
        hits = [
            Hit(loaded[pk], scores[pk], pk in in_text, similarity.get(pk, 0.0))
            for pk in best
            if pk in loaded
        ]
        similar = sum(1 for _, sim in vector_hits if sim >= SIMILAR_ENOUGH)
        estimate = _estimate(items, groups, text_ids, similar)
        estimate = max(estimate, len(hits))  # what we show is a lower bound of what matched
        return SearchResult(hits, estimate, confidence(hits[0] if hits else None))
