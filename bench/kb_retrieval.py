"""Knowledge-base benchmark: retrieval quality, retrieval latency at scale, ingestion speed.

    TULIA_DATA_DIR=var/kb-bench .venv/bin/python bench/kb_retrieval.py \
        [--tenants 100] [--chunks-per-tenant 1000] [--queries 400] [--skip-latency]

(a) Quality on bench/kb_labelled.tsv over the demo documents: recall@5 and MRR for the
    answerable questions (a hit counts when it is the expected topic and section in
    either language version), and how often the NO_CONTEXT verdict is right on the
    answerable and on the unanswerable questions.
(b) Latency of kb_retrieve's body (embed the question, hybrid search, verdict) against
    synthetic tenants of `--chunks-per-tenant` chunks each, all in the one shared table.
(c) Ingestion throughput in pages per second for generated PDFs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "dev")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from kb.demo import DemoDocument, demo_documents, seed_documents  # noqa: E402
from kb.embedding import kb_embedder  # noqa: E402
from kb.retrieval import Hit, retrieve  # noqa: E402
from tenants.context import operator_context, tenant_context  # noqa: E402
from tenants.demo import seed_tenants  # noqa: E402
from tenants.models import Tenant  # noqa: E402
from tulia.db_roles import as_owner  # noqa: E402

LABELS = Path(__file__).with_name("kb_labelled.tsv")


@dataclass(frozen=True)
class Question:
    tenant: str
    lang: str
    topic: str
    section: str  # English heading prefix, "-" when the documents cannot answer
    text: str

    @property
    def answerable(self) -> bool:
        return self.topic != "-"


def load_questions() -> list[Question]:
    rows = [line.split("\t") for line in LABELS.read_text(encoding="utf-8").splitlines()]
    return [Question(*row) for row in rows if row and not row[0].startswith("#")]


# --- (a) quality -------------------------------------------------------------------------
def section_index(slug: str) -> dict[tuple[str, str], tuple[str, int]]:
    """(document title, heading) -> (topic, position of the heading in its document)."""
    index: dict[tuple[str, str], tuple[str, int]] = {}
    for doc in demo_documents(slug):
        for position, heading in enumerate(_headings(doc)):
            index[(doc.title, heading)] = (doc.topic, position)
    return index


def _headings(doc: DemoDocument) -> list[str]:
    lines = doc.path.read_text(encoding="utf-8").splitlines()
    return [line[3:].strip() for line in lines if line.startswith("## ")]


def expected_position(slug: str, q: Question) -> int:
    english = next(d for d in demo_documents(slug) if d.topic == q.topic and d.language == "en")
    headings = _headings(english)
    return next(i for i, h in enumerate(headings) if h.startswith(q.section))


def rank_of(q: Question, hits: list[Hit], index: dict[tuple[str, str], tuple[str, int]]) -> int:
    want = (q.topic, expected_position(q.tenant, q))
    for rank, hit in enumerate(hits, start=1):
        heading = hit.section.split(" > ")[-1]
        if index.get((hit.title, heading)) == want:
            return rank
    return 0


def quality(questions: list[Question]) -> None:
    tenants = {t.slug: t for t in Tenant.objects.filter(slug__in={q.tenant for q in questions})}
    indexes = {slug: section_index(slug) for slug in tenants}
    ranks, nc_right_ans, nc_right_unans = [], [], []
    by_lang: dict[str, list[int]] = {}
    misses = []
    for q in questions:
        result = retrieve(tenants[q.tenant].id, q.text, top_k=5)
        if not q.answerable:
            nc_right_unans.append(result.no_context)
            if not result.no_context:
                misses.append(f"  answered unanswerable: {q.text} -> {result.hits[0].section}")
            continue
        rank = rank_of(q, result.hits, indexes[q.tenant])
        ranks.append(rank)
        by_lang.setdefault(q.lang, []).append(rank)
        nc_right_ans.append(not result.no_context)
        if rank == 0 or result.no_context:
            top = result.hits[0].section if result.hits else "-"
            misses.append(f"  miss r={rank} nc={result.no_context}: {q.text} -> {top}")
    _print_quality(ranks, by_lang, nc_right_ans, nc_right_unans)
    if os.environ.get("KB_BENCH_VERBOSE"):
        print("\n".join(misses))


def _recall(ranks: list[int]) -> float:
    return sum(1 for r in ranks if 0 < r <= 5) / len(ranks)


def _mrr(ranks: list[int]) -> float:
    return sum(1 / r for r in ranks if r) / len(ranks)


def _print_quality(
    ranks: list[int], by_lang: dict[str, list[int]], ans: list[bool], unans: list[bool]
) -> None:
    print(f"(a) quality, embedder {kb_embedder().name}")
    print(f"    answerable {len(ranks)}, unanswerable {len(unans)}")
    print(f"    recall@5 {_recall(ranks):.3f}   MRR {_mrr(ranks):.3f}")
    for lang, lr in sorted(by_lang.items()):
        print(f"      {lang:6} n={len(lr):3}  recall@5 {_recall(lr):.3f}  MRR {_mrr(lr):.3f}")
    print(f"    NO_CONTEXT correct on answerable   {sum(ans) / len(ans):.3f}")
    print(f"    NO_CONTEXT correct on unanswerable {sum(unans) / len(unans):.3f}")


# --- (b) latency -------------------------------------------------------------------------
def synthetic_tenants(count: int, per_tenant: int) -> list[uuid.UUID]:
    """Create (once) `count` bench tenants with `per_tenant` synthetic chunks each.

    The HNSW index is dropped for the bulk fill and rebuilt afterwards: maintaining it
    row by row is what makes a large fill slow, and the rebuilt index is the same.
    """
    tenants = [
        Tenant.objects.get_or_create(slug=f"kbbench-{n:05d}", defaults={"name": f"B{n}"})[0]
        for n in range(count)
    ]
    empty = [t for t in tenants if _chunk_count(t.id) == 0]
    if empty:
        _drop_vector_index()
        started = time.perf_counter()
        for n, tenant in enumerate(empty):
            _fill(tenant.id, per_tenant)
            if n % 25 == 0:
                print(
                    f"    filled {n + 1}/{len(empty)} tenants, {time.perf_counter() - started:.0f}s"
                )
        _rebuild_vector_index()
    return [t.id for t in tenants]


def _drop_vector_index() -> None:
    with as_owner(), connection.cursor() as cursor:  # DDL: only the owner role may
        cursor.execute("DROP INDEX IF EXISTS kb_chunk_embedding")


def _rebuild_vector_index() -> None:
    started = time.perf_counter()
    with as_owner(), connection.cursor() as cursor:  # DDL: only the owner role may
        cursor.execute("SET maintenance_work_mem = '512MB'")
        cursor.execute(
            "CREATE INDEX IF NOT EXISTS kb_chunk_embedding ON kb_chunk"
            " USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
    print(f"    rebuilt the HNSW index in {time.perf_counter() - started:.0f}s")


def _chunk_count(tenant_id: uuid.UUID) -> int:
    with tenant_context(tenant_id), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM kb_chunk")
        return int(cursor.fetchone()[0])


_VOCAB_SQL = """
SELECT array_agg(w) FROM (
    SELECT DISTINCT unnest(string_to_array(lower(text), ' ')) AS w FROM kb_chunk
    WHERE document_id IS NOT NULL
) t
"""


def _fill(tenant_id: uuid.UUID, per_tenant: int) -> None:
    """Random text from the demo vocabulary and random vectors, generated inside Postgres."""
    from kb.models import ConversationSummary

    with operator_context("kb bench fill"), connection.cursor() as cursor:
        cursor.execute(_VOCAB_SQL)
        vocab = cursor.fetchone()[0] or ["word"]
        source = ConversationSummary.objects.create(
            tenant_id=tenant_id, title="Synthetic", text="-", approved=True
        )
        cursor.execute(_FILL_SQL, [tenant_id, source.pk, kb_embedder().name, vocab, per_tenant])


_FILL_SQL = """
INSERT INTO kb_chunk (tenant_id, document_id, summary_id, source_type, title, section_path,
                      position, text, content_hash, embedder, embedding)
SELECT %s, NULL, %s, 'summary', 'Synthetic ' || g, 'Section ' || (g %% 7), g,
       (SELECT string_agg(v[1 + floor(random() * array_length(v, 1) + 0 * s.i)::int], ' ')
          FROM generate_series(1, 80) AS s(i) WHERE g > 0),
       md5(g::text), %s,
       (SELECT array_agg(random() - 0.5 + 0 * s.i) FROM generate_series(1, 384) AS s(i)
         WHERE g > 0)::vector
FROM (SELECT %s::text[] AS v) vocab, generate_series(1, %s) g
"""


def latency(questions: list[Question], tenant_ids: list[uuid.UUID], runs: int) -> None:
    rng = random.Random(7)
    timings = []
    for _ in range(runs):
        q = rng.choice(questions)
        tid = rng.choice(tenant_ids)
        started = time.perf_counter()
        retrieve(tid, q.text)
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    with operator_context("kb bench count"), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM kb_chunk")
        total = cursor.fetchone()[0]
    p95 = timings[int(len(timings) * 0.95) - 1]
    print(f"(b) latency over {len(tenant_ids)} tenants, {total} chunks in kb_chunk, {runs} queries")
    print(
        f"    p50 {statistics.median(timings):.1f} ms   p95 {p95:.1f} ms   max {timings[-1]:.1f} ms"
    )


# --- (c) ingestion -----------------------------------------------------------------------
def ingestion(pages: int) -> None:
    from kb.documents import submit_document
    from kb.ingest import ingest_document
    from tests.kb.files import pdf_bytes

    tenant = Tenant.objects.get(slug="kicks-nairobi")
    body = [_page_lines(n) for n in range(pages)]
    data = pdf_bytes(body)
    started = time.perf_counter()
    doc = submit_document(
        tenant.id,
        title=f"Bench {uuid.uuid4().hex[:6]}",
        kind="doc",
        filename="b.pdf",
        data=data,
        queue=False,
    )
    outcome = ingest_document(tenant.id, doc.pk, doc.content_hash)
    elapsed = time.perf_counter() - started
    with tenant_context(tenant.id):
        doc.refresh_from_db()
        chunks = doc.chunk_count
        doc.delete()
    print(
        f"(c) ingestion: {pages}-page PDF -> {chunks} chunks, {outcome}, {elapsed:.2f}s,"
        f" {pages / elapsed:.1f} pages/s"
    )


def _page_lines(n: int) -> list[str]:
    lines = [f"Section {n} Delivery Notes", ""]
    for i in range(30):
        lines.append(
            f"Line {i} of page {n}: orders to zone {i % 9} are packed and sent with a rider."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--chunks-per-tenant", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    seed_documents(seed_tenants())
    questions = load_questions()
    quality(questions)
    if not args.skip_latency:
        ids = synthetic_tenants(args.tenants, args.chunks_per_tenant)
        latency(questions, ids, args.queries)
    ingestion(args.pages)


if __name__ == "__main__":
    main()
