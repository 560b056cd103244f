"""Catalog search benchmark: latency at scale and hit@6 on a labelled multilingual set.

    TULIA_DATA_DIR=var/cm-bench .venv/bin/python bench/catalog_search.py \
        [--tenants 10] [--items 100000] [--runs 400]

Builds (once; reused while the sizes match) `--tenants` shops of `--items` items each in
the one shared catalog table: even shops get the Kicks Nairobi catalog, odd ones the
Mama Mboga catalog, each padded with generated look-alike products. Then it runs the
queries of bench/catalog_queries.tsv (English, Swahili, Sheng, typos) through
search_catalog, the body of the catalog_search tool, and prints p50/p95/p99 latency
with and without filters and hit@6 (the labelled item among the results).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "bench")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from tenants.context import tenant_context  # noqa: E402
from tenants.models import Tenant  # noqa: E402
from tenants.services import create_tenant  # noqa: E402
from tulia.commerce.demo_data import grocery_rows, sneaker_rows  # noqa: E402
from tulia.commerce.importer import import_catalog  # noqa: E402
from tulia.commerce.indexing import embed_items  # noqa: E402
from tulia.commerce.models import CatalogItem  # noqa: E402
from tulia.commerce.search import SearchFilters, search_catalog  # noqa: E402
from tulia.db_roles import as_owner  # noqa: E402
from tulia.embeddings import get_embedder  # noqa: E402
from tulia.normalise import fold  # noqa: E402

QUERIES = Path(__file__).with_name("catalog_queries.tsv")
BATCH = 2000
INDEX_SQL = (
    "CREATE INDEX IF NOT EXISTS item_embedding_hnsw ON commerce_catalogitem "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
)
SHOE_BRANDS = ["Nike", "Adidas", "Puma", "Fila", "Kappa", "Umbro", "Diadora", "Lotto", "Le Coq"]
SHOE_MODELS = ["Court Vision", "Forum Low", "Zoom Fly", "Retro Runner", "Street Classic",
               "Trail Blazer", "City Walker", "Vintage Court", "Cloud Step",
               "Metro Flex"]  # fmt: skip
OTHER_GOODS = ["Hoodie", "T-Shirt", "Backpack", "Track Pants", "Water Bottle", "Phone Case",
               "Shorts", "Jacket", "Gym Bag", "Beanie"]  # fmt: skip
COLOURS = ["Black", "White", "Red", "Blue", "Grey", "Green", "Pink", "Brown", "Olive", "Cream"]
GROCER_BRANDS = ["Omo", "Royco", "Kasuku", "Kimbo", "Ketepa", "Brookside", "Daima", "Pembe",
                 "Jogoo", "Menengai", "Tuzo", "Elianto", "Soko", "Ajab", "Festive"]  # fmt: skip
GROCER_GOODS = ["Detergent", "Mchuzi Mix", "Cooking Fat", "Tea Bags", "Long Life Milk",
                "Bar Soap", "Tissue", "Biscuits", "Juice", "Toothpaste", "Spaghetti",
                "Baking Flour", "Margarine", "Drinking Water", "Matches"]  # fmt: skip
UNITS = ["200g", "500g", "1kg", "2kg", "250ml", "500ml", "1l", "pack of 6", "pack of 12"]


def filler_names(kind: str, count: int, rng: random.Random) -> Iterator[tuple[str, str]]:
    for n in range(count):
        if kind == "kicks":
            brand, colour = rng.choice(SHOE_BRANDS), rng.choice(COLOURS)
            thing = rng.choice(SHOE_MODELS + OTHER_GOODS)
            yield brand, f"{brand} {thing} {colour} {n}"
        else:
            brand = rng.choice(GROCER_BRANDS)
            yield brand, f"{brand} {rng.choice(GROCER_GOODS)} {rng.choice(UNITS)} {n}"


def insert_filler(tenant: Tenant, kind: str, count: int, rng: random.Random) -> None:
    embedder = get_embedder()
    names = list(filler_names(kind, count, rng))
    for start in range(0, count, BATCH):
        chunk = names[start : start + BATCH]
        texts = [fold(name) for _, name in chunk]
        vectors = embedder.embed(texts)
        with tenant_context(tenant.id) as tid:
            CatalogItem.objects.bulk_create(
                CatalogItem(
                    tenant_id=tid,
                    sku=f"F{start + i}",
                    name=name,
                    brand=brand,
                    price=Decimal(rng.randrange(50, 30000)),
                    stock=(stock := rng.randrange(0, 5)),
                    in_stock=stock > 0,
                    search_text=text,
                    embedding=vector,
                    embedding_model=embedder.name,
                )
                for i, ((brand, name), text, vector) in enumerate(
                    zip(chunk, texts, vectors, strict=True)
                )
            )


def bench_tenant(n: int, items: int) -> tuple[Tenant, str, bool]:
    """The n-th bench shop, its kind, and whether its catalog must be (re)built."""
    kind = "kicks" if n % 2 == 0 else "mboga"
    slug = f"bench-{kind}-{n}"
    tenant = Tenant.objects.filter(slug=slug).first() or create_tenant(slug=slug, name=slug)
    with tenant_context(tenant.id):
        present = CatalogItem.objects.count()
    return tenant, kind, present < items


def fill_tenant(tenant: Tenant, kind: str, items: int, rng: random.Random) -> None:
    with tenant_context(tenant.id):
        CatalogItem.objects.all().delete()
    rows = sneaker_rows() if kind == "kicks" else grocery_rows()
    with transaction.atomic():
        report = import_catalog(tenant.id, json.dumps(rows), "json")
    assert report.ok, report.errors[:3]
    with tenant_context(tenant.id):
        ids = list(CatalogItem.objects.values_list("id", flat=True))
    embed_items(tenant.id, ids)
    insert_filler(tenant, kind, items - len(ids), rng)


def build(tenants: int, items: int) -> list[Tenant]:
    """Build missing catalogs; the HNSW index is rebuilt only when something was loaded."""
    rng = random.Random(6)
    shops = [bench_tenant(n, items) for n in range(tenants)]
    stale = [(tenant, kind) for tenant, kind, needs in shops if needs]
    if stale:
        started = time.perf_counter()
        with as_owner(), connection.cursor() as cursor:  # DDL: only the owner role may
            # Building the HNSW index once is far faster than growing it row by row.
            cursor.execute("DROP INDEX IF EXISTS item_embedding_hnsw")
        for tenant, kind in stale:
            fill_tenant(tenant, kind, items, rng)
            print(f"  loaded {tenant.slug} ({time.perf_counter() - started:.0f}s)", flush=True)
        loaded = time.perf_counter()
        with as_owner(), connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '1GB'")
            cursor.execute(INDEX_SQL)
            cursor.execute("ANALYZE commerce_catalogitem")
        print(f"build: {len(stale)} x {items} items; load {loaded - started:.0f}s, "
              f"index {time.perf_counter() - loaded:.0f}s", flush=True)  # fmt: skip
    return [tenant for tenant, _, _ in shops]


def labelled() -> list[tuple[str, str, set[str]]]:
    rows = []
    for line in QUERIES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            query, language, expected = line.split("\t")
            rows.append((query, language, set(expected.split("|"))))
    return rows


def run_query(tenant: Tenant, query: str, filters: SearchFilters) -> tuple[float, list[str]]:
    started = time.perf_counter()
    result = search_catalog(tenant.id, query, filters)
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, [hit.item.sku for hit in result.hits]


def percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100)
    return {"p50": round(cuts[49], 1), "p95": round(cuts[94], 1), "p99": round(cuts[98], 1)}


FILTERS = SearchFilters(in_stock=True, max_price=Decimal(40000))


def measure(shops: list[Tenant], runs: int, filters: SearchFilters) -> tuple[dict, dict]:
    """Cycle the labelled queries over the shops of the matching kind."""
    queries = labelled()
    latencies: list[float] = []
    hits: dict[str, list[bool]] = {}
    for n in range(max(runs, len(queries))):
        query, language, expected = queries[n % len(queries)]
        kind = 0 if next(iter(expected)).startswith("KN") else 1
        candidates = shops[kind::2]
        elapsed, skus = run_query(candidates[n % len(candidates)], query, filters)
        latencies.append(elapsed)
        if n < len(queries):
            hits.setdefault(language, []).append(bool(expected & set(skus)))
    return percentiles(latencies), hits


def report_hits(hits: dict[str, list[bool]]) -> float:
    total = [hit for group in hits.values() for hit in group]
    for language, group in sorted(hits.items()):
        print(f"  hit@6 {language:6s} {sum(group)}/{len(group)} = {sum(group) / len(group):.3f}")
    rate = sum(total) / len(total)
    print(f"  hit@6 all    {sum(total)}/{len(total)} = {rate:.3f}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=400)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    shops = build(args.tenants, args.items)
    search_catalog(shops[0].id, "warm up")
    plain, hits = measure(shops, args.runs, SearchFilters())
    print(f"catalog_search latency ms (no filters, {args.runs} runs): {plain}")
    rate = report_hits(hits)
    filtered, _ = measure(shops, args.runs, FILTERS)
    print(f"catalog_search latency ms (in_stock + max_price, {args.runs} runs): {filtered}")
    summary = {"tenants": args.tenants, "items_per_tenant": args.items, "hit_at_6": round(rate, 3),
               **{f"{k}_ms": v for k, v in plain.items()},
               **{f"filtered_{k}_ms": v for k, v in filtered.items()}}  # fmt: skip
    print("summary: " + json.dumps(summary))


if __name__ == "__main__":
    main()
