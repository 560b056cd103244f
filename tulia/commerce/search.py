"""Catalog search: full-text + pgvector similarity, fused by reciprocal rank, filtered.

Both retrievers run on the same filtered, tenant-scoped set of active items. A query
with no words is a browse of the filtered set. At most MAX_RESULTS come back, with an
estimate of how many matched and a confidence the graph uses to fall back to the
catalog link (SPEC §5.2).

Both retrievers and the estimate are one SQL statement (_STATEMENT). Words match as
whole lexemes (with plural forms), never by prefix, so GIN answers from a few posting
lists; only when no item has every word does a fuzzy fallback (prefixes, all words but
one) run, ranked by vector distance. Latency at 10 shops x 100k items: bench/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from pgvector.django import CosineDistance

from tenants.accessors import tenant_scope
from tulia.commerce.lexicon import expand_groups
from tulia.commerce.models import CatalogItem, Variant
from tulia.commerce.relevance import Candidate, Found, Verdict, judge
from tulia.embeddings import get_embedder

MAX_RESULTS = 6
CANDIDATES = 40
RRF_K = 60
ESTIMATE_CAP = 1000
LOOSE_SAMPLE = 2000
# Longer queries match any word in the loose pass ("all but one" grows quadratically).
MAX_NEAR_WORDS = 6
# In the fuzzy fallback, words this long also match by their first FUZZY_PREFIX letters.
FUZZY_MIN_LENGTH = 5
FUZZY_PREFIX = 3
# With ~1/N of the index belonging to one tenant, HNSW must look wider to keep
# candidates after the tenant filter (pgvector 0.6 has no iterative scans).
HNSW_EF_SEARCH = 80
# Cosine similarity above which a vector-only hit counts as a match in the estimate.
SIMILAR_ENOUGH = 0.35
# Below this a vector "neighbour" shares only stray character n-grams: not a result.
MIN_SIMILARITY = 0.12
# Candidates judged per result wanted: enough that dropped noise leaves the six.
JUDGED_PER_RESULT = 3


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
    """`hits`: what the customer asked for. `alternatives`: the closest other items the
    shop really has in stock, for "we don't stock that, but…" (empty when nothing is
    close enough to offer)."""

    hits: list[Hit]
    total_estimate: int
    confidence: float
    alternatives: list[Hit] = field(default_factory=list)


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


def _forms(word: str) -> list[str]:
    """The word and its plural/singular, matched as whole lexemes.

    Not prefix matching (`word:*`): GIN then gathers every lexeme starting with the word
    across all tenants ("1:*" is every number starting with 1), which cost 30-100 ms a
    search at 1M items, where exact lexemes cost well under a millisecond.
    """
    if word.isdigit():
        return [word]
    forms = [word, f"{word}s", f"{word}es"]
    if word.endswith("s") and len(word) > 3:
        forms.append(word[:-1])
    if word.endswith("es") and len(word) > 4:
        forms.append(word[:-2])
    return forms


def _any_of(group: list[str], *, fuzzy: bool = False) -> str:
    forms = [form for word in group for form in _forms(word)]
    head = group[0]
    if fuzzy and len(head) >= FUZZY_MIN_LENGTH and head.isalpha():
        forms.append(f"{head[:FUZZY_PREFIX]}:*")
    return "(" + " | ".join(dict.fromkeys(forms)) + ")"


def _all_of(groups: list[list[str]], *, fuzzy: bool = False) -> str:
    return " & ".join(_any_of(group, fuzzy=fuzzy) for group in groups)


def _tsquery(groups: list[list[str]], *, every: bool) -> SearchQuery:
    """every=True: each word (or one of its equivalents) must match.

    Else the fuzzy fallback: a long word may also match by its first letters
    ("tomatos" -> tom:*), and all words but one must match, so one misspelt word
    ("adiddas samba") does not lose the item; with many words, any word may. "All but
    one" rather than "any": GIN evaluates it before touching the heap, so it yields a
    handful of rows where "any" of a query with a colour in it bitmaps tens of
    thousands of rows across all tenants (30-80 ms).
    Words are [a-z0-9]+ only (normalised), so the raw syntax cannot be injected.
    """
    if every:
        raw = _all_of(groups)
    elif 3 <= len(groups) <= MAX_NEAR_WORDS:
        raw = " | ".join(
            f"({_all_of(groups[:skip] + groups[skip + 1 :], fuzzy=True)})"
            for skip in range(len(groups))
        )
    else:
        raw = " | ".join(_any_of(group, fuzzy=True) for group in groups)
    return SearchQuery(raw, search_type="raw", config="simple")


def _sql(queryset: QuerySet[Any, Any]) -> tuple[str, tuple[Any, ...]]:
    sql, params = queryset.query.sql_with_params()
    return sql, tuple(params)


def _matches(items: QuerySet[CatalogItem], query: SearchQuery) -> tuple[str, tuple[Any, ...]]:
    """Matching ids with their rank, unordered: the caller bounds how many are ranked."""
    rank = SearchRank(F("search_vector"), query)
    return _sql(items.filter(search_vector=query).annotate(rank=rank).values("id", "rank"))


def _fuzzy(
    items: QuerySet[CatalogItem], query: SearchQuery, vector: list[float]
) -> tuple[str, tuple[Any, ...]]:
    """Fuzzy matches ranked by embedding distance (lower first): the prefixes let in
    many look-alikes, and the n-gram vector tells "tomatoes" from "tomato paste"."""
    distance = CosineDistance("embedding", vector)
    return _sql(items.filter(search_vector=query).annotate(rank=distance).values("id", "rank"))


def _nearest(tenant_id: UUID, vector: list[float]) -> tuple[str, tuple[Any, ...]]:
    """Only tenant conditions here, so the planner keeps using the HNSW index."""
    nearest = CatalogItem.objects.filter(
        tenant_id=tenant_id, is_active=True, embedding_model=get_embedder().name
    ).annotate(distance=CosineDistance("embedding", vector))
    return _sql(nearest.order_by("distance").values("id", "distance")[:CANDIDATES])


# One statement, one round trip. strict: at most ESTIMATE_CAP items matching every word,
# counted (the estimate) and ranked. loose: the fuzzy fallback (see _tsquery), a bounded
# sample ranked by vector distance; its LIMIT is 0 unless strict found nothing, so its
# scan never starts otherwise. vec: HNSW neighbours under tenant conditions only (so the
# index is used), then narrowed by the structured filters. The placeholders receive
# ORM-compiled SQL and constants; every value travels as a parameter.
_STATEMENT = """
WITH strict AS MATERIALIZED ({strict} LIMIT {cap}),
loose AS MATERIALIZED (
    SELECT * FROM ({fuzzy}) f
    LIMIT CASE WHEN EXISTS (SELECT FROM strict) THEN 0 ELSE {sample} END
),
vec AS MATERIALIZED ({nearest})
SELECT 's', id, rank FROM (SELECT * FROM strict ORDER BY rank DESC, id LIMIT {top}) s
UNION ALL SELECT 'l', id, rank FROM (SELECT * FROM loose ORDER BY rank, id LIMIT {top}) l
UNION ALL SELECT 'n', count(*), 0 FROM strict
UNION ALL SELECT 'v', id, distance FROM vec WHERE id IN ({allowed})
"""


def _statement(
    tenant_id: UUID, items: QuerySet[CatalogItem], groups: list[list[str]], vector: list[float]
) -> tuple[str, tuple[Any, ...]]:
    strict, strict_params = _matches(items, _tsquery(groups, every=True))
    fuzzy, fuzzy_params = _fuzzy(items, _tsquery(groups, every=False), vector)
    nearest, nearest_params = _nearest(tenant_id, vector)
    allowed, allowed_params = _sql(
        items.filter(pk__in=RawSQL("SELECT id FROM vec", ())).values("id")
    )
    sql = _STATEMENT.format(
        strict=strict,
        fuzzy=fuzzy,
        nearest=nearest,
        allowed=allowed,
        cap=ESTIMATE_CAP,
        sample=LOOSE_SAMPLE,
        top=CANDIDATES,
    )
    return sql, strict_params + fuzzy_params + nearest_params + allowed_params


@dataclass(frozen=True)
class _Candidates:
    text_ids: list[int]
    vector_hits: list[tuple[int, float]]
    strict_count: int
    strict_ids: frozenset[int] = frozenset()
    # Fuzzy matches' similarity (the loose pass ranks by vector distance).
    fuzzy_similarity: dict[int, float] = field(default_factory=dict)


def _candidates(
    tenant_id: UUID, items: QuerySet[CatalogItem], groups: list[list[str]]
) -> _Candidates:
    vector = get_embedder().embed([" ".join(w for g in groups for w in g)])[0]
    sql, params = _statement(tenant_id, items, groups, vector)
    with connection.cursor() as cursor:
        # SET LOCAL in the same round trip; its (empty) result comes first.
        cursor.execute(f"SET LOCAL hnsw.ef_search = {HNSW_EF_SEARCH}; {sql}", params)
        cursor.nextset()
        rows = cursor.fetchall()
    strict = [pk for kind, pk, _ in rows if kind == "s"]
    loose = [(pk, float(d)) for kind, pk, d in rows if kind == "l"]  # when strict found none
    near = sorted((float(d), pk) for kind, pk, d in rows if kind == "v")
    scored = [(pk, 1.0 - distance) for distance, pk in near]
    return _Candidates(
        text_ids=strict + [pk for pk, _ in loose],
        vector_hits=[(pk, sim) for pk, sim in scored if sim >= MIN_SIMILARITY],
        strict_count=next(pk for kind, pk, _ in rows if kind == "n"),
        strict_ids=frozenset(strict),
        fuzzy_similarity={pk: 1.0 - distance for pk, distance in loose},
    )


def _fuse(text_ids: list[int], vector_hits: list[tuple[int, float]]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for rank, pk in enumerate(text_ids):
        scores[pk] = scores.get(pk, 0.0) + 1.0 / (RRF_K + rank + 1)
    for rank, (pk, _) in enumerate(vector_hits):
        scores[pk] = scores.get(pk, 0.0) + 1.0 / (RRF_K + rank + 1)
    return scores


def _estimate(found: _Candidates, matched: int) -> int:
    """Items matching every word (counted up to ESTIMATE_CAP); failing those, the typo
    matches judged relevant or the items that look alike. Nothing matched: none."""
    if not matched:
        return 0
    if found.strict_ids:
        return max(found.strict_count, matched)
    similar = sum(1 for _, sim in found.vector_hits if sim >= SIMILAR_ENOUGH)
    return max(matched, similar)


def _load(ids: list[int]) -> dict[int, CatalogItem]:
    """The shown items, without the search material (a 384-float vector each); the
    search text stays, relevance reads it."""
    heavy = ("embedding", "search_vector")
    return CatalogItem.objects.select_related("category").defer(*heavy).in_bulk(ids)


def confidence(top: Hit | None) -> float:
    """Half from the vector similarity of the best hit, half from it matching the words."""
    if top is None:
        return 0.0
    semantic = min(1.0, max(0.0, (top.similarity - 0.1) / 0.4))
    return round(0.5 * semantic + (0.5 if top.text_match else 0.0), 2)


def _browse(items: QuerySet[CatalogItem], limit: int) -> SearchResult:
    browse = list(items.select_related("category").order_by("name", "id")[:limit])
    hits = [Hit(item, 0.0, False, 0.0) for item in browse]
    return SearchResult(hits, items[:ESTIMATE_CAP].count(), 0.5 if hits else 0.0)


def _found(pk: int, found: _Candidates, similarity: dict[int, float]) -> tuple[Found, float]:
    if pk in found.strict_ids:
        return Found.EXACT, similarity.get(pk, 0.0)
    if pk in found.fuzzy_similarity:
        return Found.FUZZY, found.fuzzy_similarity[pk]
    return Found.NEAR, similarity.get(pk, 0.0)


def _judged(
    groups: list[list[str]], found: _Candidates, ranked: list[int]
) -> tuple[list[Hit], list[Hit]]:
    """The ranked candidates split into matches and in-stock alternatives (relevance.py).
    Text candidates are judged first: once one matched the words, a vector neighbour is
    at most an alternative."""
    scores = _fuse(found.text_ids, found.vector_hits)
    similarity = dict(found.vector_hits)
    loaded = _load(ranked)
    judged: dict[int, tuple[Hit, Verdict]] = {}
    text_first = sorted(ranked, key=lambda pk: pk not in found.text_ids)
    for pk in (pk for pk in text_first if pk in loaded):
        how, sim = _found(pk, found, similarity)
        item = loaded[pk]
        words_matched = any(v is Verdict.MATCH for _, v in judged.values())
        verdict = judge(
            Candidate(item.name, item.search_text, how, sim), groups, words_matched=words_matched
        )
        judged[pk] = (Hit(item, scores[pk], how is not Found.NEAR, sim), verdict)
    in_order = [judged[pk] for pk in ranked if pk in judged]
    matches = [hit for hit, verdict in in_order if verdict is Verdict.MATCH]
    alternatives = [
        hit for hit, verdict in in_order if verdict is Verdict.ALTERNATIVE and hit.item.in_stock
    ]
    alternatives.sort(key=lambda hit: -hit.similarity)
    return matches, alternatives


def search_catalog(
    tenant_id: UUID | str,
    query: str,
    filters: SearchFilters | None = None,
    *,
    limit: int = MAX_RESULTS,
) -> SearchResult:
    """`limit`: six for a chat message; the shop page shows more (at most CANDIDATES)."""
    limit = max(1, min(limit, CANDIDATES))
    groups = expand_groups(query)
    with tenant_scope(tenant_id) as tid:  # the catalog_search tool is already inside it
        items = _filtered(tid, filters or SearchFilters())
        if not groups:
            return _browse(items, limit)
        found = _candidates(tid, items, groups)
        scores = _fuse(found.text_ids, found.vector_hits)
        # Judged before the cut, so noise never crowds out a real match.
        ranked = sorted(scores, key=lambda pk: (-scores[pk], pk))[: limit * JUDGED_PER_RESULT]
        matches, alternatives = _judged(groups, found, ranked)
        hits = matches[:limit]
        top = hits[0] if hits else None
        estimate = _estimate(found, len(matches))
        return SearchResult(hits, estimate, confidence(top), alternatives[:limit])
