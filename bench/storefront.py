"""Shop page benchmark: a 100,000-item shop, first-load weight and server time.

    .venv/bin/python bench/storefront.py [--items 100000] [--runs 300]

Builds (once; reused while the size matches) the shop `bench-storefront`: the Kicks
Nairobi demo catalog (categories, sizes) padded with generated products by bulk insert,
each with a photo on a local photo host. Then:

- weight: Chromium (Debian's, via Playwright) at 360 x 640 CSS px, density 2, opens
  the catalog, a search page and a product page on a real local HTTP server and sums
  the bytes on the wire of everything it fetched before any scroll (HTML with its
  inline CSS, and the thumbnails the browser chose to load; lazy ones further down
  are not fetched). Target: at most 100 KB per page.
- server time: the same kinds of pages (first catalog page, category pages, deep
  pages, searches in English/Swahili/Sheng with typos, products) through Django's
  full request handler, nothing cached, visits counted as in production. Target: p95
  at most 50 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "bench")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM next to Playwright's loop

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()

from catalog_search import INDEX_SQL, filler_names  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from tenants.context import tenant_context  # noqa: E402
from tenants.models import Tenant  # noqa: E402
from tenants.services import create_tenant, register_whatsapp_sender  # noqa: E402
from tulia.commerce.demo_data import sneaker_rows  # noqa: E402
from tulia.commerce.importer import import_catalog  # noqa: E402
from tulia.commerce.indexing import embed_items  # noqa: E402
from tulia.commerce.models import CatalogItem, Category  # noqa: E402
from tulia.db_roles import as_owner  # noqa: E402
from tulia.embeddings import get_embedder  # noqa: E402
from tulia.normalise import fold  # noqa: E402

SLUG = "bench-storefront"
PHOTO_PORT = 8765  # fixed: the photo addresses are stored with the catalog
PHOTO_BASE = f"http://127.0.0.1:{PHOTO_PORT}"
PHOTOS = 40
BATCH = 2000
SEARCHES = ["sneakers", "raba", "viatu", "nike court vision", "adidas forum low black",
            "hoodie", "backpack grey", "water bottle", "addidas samba", "ndala",
            "puma trail blazer red", "track pants", "jacket olive", "beanie"]  # fmt: skip
PHONE = {"width": 360, "height": 640}
TARGET_KB = 100
TARGET_P95_MS = 50


def photo(n: int) -> bytes:
    """A camera-sized JPEG that shrinks like a product photo: soft shapes and shading
    over fine grain (pure noise would average away to a flat, unrealistically tiny file)."""
    rng = random.Random(n)
    size = (1200, 1200)
    shading = Image.effect_noise((24, 24), 60).resize(size, Image.Resampling.BICUBIC)
    picture = Image.merge(
        "RGB", [shading.point(lambda v, k=k: (v + 80 * k) % 256) for k in range(3)]
    )
    draw = ImageDraw.Draw(picture)
    for _ in range(8):
        x, y = rng.randrange(1000), rng.randrange(1000)
        colour = tuple(rng.randrange(256) for _ in range(3))
        draw.ellipse((x, y, x + rng.randrange(80, 500), y + rng.randrange(60, 300)), fill=colour)
    grain = Image.effect_noise(size, 12).convert("RGB")
    out = io.BytesIO()
    Image.blend(picture, grain, 0.15).save(out, "JPEG", quality=88)
    return out.getvalue()


class PhotoHost:
    """The shop's photo server, on loopback: the thumbnails are made from these."""

    def __init__(self) -> None:
        photos = {f"/p/{n}.jpg": photo(n) for n in range(PHOTOS)}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = photos.get(self.path)
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "image/jpeg")
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", PHOTO_PORT), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def shop() -> tuple[Tenant, int]:
    tenant = Tenant.objects.filter(slug=SLUG).first()
    if tenant is None:
        tenant = create_tenant(slug=SLUG, name="Bench Kicks", payment_methods=["mpesa_stk"])
        register_whatsapp_sender(
            tenant.id, phone="+254799000001", account_sid="AC" + "e" * 32, auth_token="t" * 16
        )
    with tenant_context(tenant.id) as tid:
        present = CatalogItem.objects.filter(tenant_id=tid).count()
    return tenant, present


def insert_filler(tenant: Tenant, count: int) -> None:
    """Generated look-alikes in the demo's categories, by bulk insert, search material
    (text and vector) computed here the way the indexer would."""
    rng = random.Random(23)
    embedder = get_embedder()
    names = list(filler_names("kicks", count, rng))
    with tenant_context(tenant.id) as tid:
        categories = list(Category.objects.filter(tenant_id=tid))
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
                    category=rng.choice(categories) if categories else None,
                    price=Decimal(rng.randrange(300, 20000)),
                    stock=(stock := rng.randrange(0, 5)),
                    in_stock=stock > 0,
                    image_url=f"{PHOTO_BASE}/p/{(start + i) % PHOTOS}.jpg",
                    search_text=text,
                    embedding=vector,
                    embedding_model=embedder.name,
                )
                for i, ((brand, name), text, vector) in enumerate(
                    zip(chunk, texts, vectors, strict=True)
                )
            )


def build(items: int) -> Tenant:
    tenant, present = shop()
    if present >= items:
        return tenant
    started = time.perf_counter()
    with tenant_context(tenant.id) as tid:
        CatalogItem.objects.filter(tenant_id=tid).delete()
    with transaction.atomic():
        report = import_catalog(tenant.id, json.dumps(sneaker_rows()), "json")
    assert report.ok, report.errors[:3]
    with tenant_context(tenant.id) as tid:
        ids = list(CatalogItem.objects.filter(tenant_id=tid).values_list("id", flat=True))
        # The demo's photos live on the internet; point them at the local host too.
        CatalogItem.objects.filter(tenant_id=tid).update(image_url=f"{PHOTO_BASE}/p/0.jpg")
    embed_items(tenant.id, ids)
    with as_owner(), connection.cursor() as cursor:  # DDL: only the owner role may
        cursor.execute("DROP INDEX IF EXISTS item_embedding_hnsw")
    insert_filler(tenant, items - len(ids))
    with as_owner(), connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(INDEX_SQL)
        cursor.execute("ANALYZE")
    print(f"build: {items} items in {time.perf_counter() - started:.0f}s", flush=True)
    return tenant


def sample_pages(tenant: Tenant, rng: random.Random) -> dict[str, list[str]]:
    with tenant_context(tenant.id) as tid:
        categories = list(Category.objects.filter(tenant_id=tid).values_list("slug", flat=True))
        top = CatalogItem.objects.filter(tenant_id=tid).order_by("-id").values_list("id")[0][0]
        bottom = CatalogItem.objects.filter(tenant_id=tid).order_by("id").values_list("id")[0][0]
    base = f"/shop/{SLUG}/"
    return {
        "catalog": [base, base + "?page=40", *(f"{base}?c={c}" for c in categories),
                    *(f"{base}?c={c}&page=9" for c in categories)],
        "search": [f"{base}?q={q.replace(' ', '+')}" for q in SEARCHES],
        "product": [f"{base}p/{rng.randrange(bottom, top + 1)}/" for _ in range(60)],
    }  # fmt: skip


def percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100)
    return {"p50": round(cuts[49], 1), "p95": round(cuts[94], 1), "max": round(max(samples), 1)}


def round_trips(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    return len(captured.captured_queries)


def server_times(pages: dict[str, list[str]], runs: int) -> dict[str, dict[str, float]]:
    """Wall time per request through Django's whole handler, and this process's CPU
    time for it (PostgreSQL's own work excluded): on a loaded shared machine the wall
    time is mostly waiting for a core, the CPU time is not."""
    client = Client()
    for kind, paths in pages.items():  # connections, templates and the embedder warmed once
        client.get(paths[0])
        print(f"round trips to PostgreSQL, {kind}: {round_trips(client, paths[0])}")
    figures = {}
    for kind, paths in pages.items():
        wall, cpu = [], []
        for n in range(runs):
            started, used = time.perf_counter(), time.process_time()
            response = client.get(paths[n % len(paths)])
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
            assert response.status_code == 200, (paths[n % len(paths)], response.status_code)
        figures[kind] = {**percentiles(wall), "cpu_p95": percentiles(cpu)["p95"]}
    return figures


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def serve() -> str:
    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def first_load(base: str, path: str) -> dict[str, Any]:
    """Bytes on the wire (headers included) of everything fetched before any scroll."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)  # type: ignore[arg-type]
        page = context.new_page()
        finished = []
        page.on("requestfinished", lambda request: finished.append(request))  # noqa: PLW0108 - Playwright wraps the handler
        page.goto(base + path, wait_until="networkidle")
        sizes = [(r.resource_type, r.sizes()) for r in finished]
        browser.close()
    wire = {kind: 0 for kind, _ in sizes}
    for kind, size in sizes:
        wire[kind] += size["responseBodySize"] + size["responseHeadersSize"]
    images = sum(1 for kind, _ in sizes if kind == "image")
    return {"kb": round(sum(wire.values()) / 1024, 1), "images": images,
            **{f"{k}_kb": round(v / 1024, 1) for k, v in wire.items()}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    PhotoHost()
    tenant = build(args.items)
    pages = sample_pages(tenant, random.Random(5))
    base = serve()
    weights = {}
    for kind, path in (("catalog", pages["catalog"][0]), ("search", pages["search"][0]),
                       ("product", pages["product"][0])):  # fmt: skip
        first_load(base, path)  # makes the thumbnails once (they are cached from then on)
        weights[kind] = first_load(base, path)
        print(f"first load {kind:8s} {path}: {weights[kind]}", flush=True)
    # Server time is wall time: on a shared machine the load says how much it is inflated.
    print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    times = server_times(pages, args.runs)
    print(f"load average after timing: {os.getloadavg()[0]:.1f}")
    for kind, figures in times.items():
        print(f"server ms {kind:8s} ({args.runs} requests): {figures}", flush=True)
    worst_kb = max(w["kb"] for w in weights.values())
    worst_p95 = max(t["p95"] for t in times.values())
    print(f"targets: weight {worst_kb} KB <= {TARGET_KB}: {worst_kb <= TARGET_KB}; "
          f"p95 {worst_p95} ms <= {TARGET_P95_MS}: {worst_p95 <= TARGET_P95_MS}")  # fmt: skip
    summary = {"items": args.items, "load": round(os.getloadavg()[0], 1),
               **{f"{k}_kb": w["kb"] for k, w in weights.items()},
               **{f"{k}_p95_ms": t["p95"] for k, t in times.items()}}  # fmt: skip
    print("summary: " + json.dumps(summary))


if __name__ == "__main__":
    main()
