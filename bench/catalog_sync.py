"""Store sync benchmark: import rate, webhook-to-bot latency, and a reconcile's repairs.

    TULIA_DATA_DIR=var/sync-bench .venv/bin/python bench/catalog_sync.py \
        [--items 10000] [--changes 200] [--drops 300] [--restore-rate 1000]

1. Import: a fresh shop connects to each emulator seeded with `--items` products (one in
   ten in three sizes) and imports it through the real clients (HTTP, netguard, paging,
   Shopify's cost throttle at `--restore-rate` points a second, WooCommerce variations).
   Embeddings are enqueued, not computed: the figure is the import itself.
2. Latency: with the production URLconf served over HTTP and a Celery worker running,
   the emulator changes a price and sends its signed webhook; we time until the bot's
   catalog tool (catalog_get_item, as a turn calls it) quotes the new price. p50/p99.
3. Reconcile: webhooks are dropped on purpose while `--drops` changes happen upstream
   (prices, stock, deletions, new products); one reconcile runs and reports what it
   repaired, then the catalog is checked against the store item by item.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "dev")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()
logging.disable(logging.INFO)

from celery.contrib.testing.worker import start_worker  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db.models import Sum  # noqa: E402

from tenants.context import tenant_context  # noqa: E402
from tenants.crypto import Secret  # noqa: E402
from tenants.services import create_tenant  # noqa: E402
from tools.runner import call_tool  # noqa: E402
from tulia.catalog_sync import connectors  # noqa: E402
from tulia.catalog_sync.emulators.shopify import ShopifyEmulator  # noqa: E402
from tulia.catalog_sync.emulators.woocommerce import WooEmulator  # noqa: E402
from tulia.catalog_sync.models import (  # noqa: E402
    ExternalProduct,
    ImportStatus,
    Platform,
    StoreConnection,
)
from tulia.catalog_sync.sync import reconcile, run_import  # noqa: E402
from tulia.celery import app as celery_app  # noqa: E402
from tulia.commerce.models import CatalogItem, Variant  # noqa: E402

TOKEN, SECRET = "shpat_bench", "shpss_bench"
KEY, WOO_SECRET = "ck_bench", "cs_bench"


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve() -> ThreadedWSGIServer:
    server = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.PUBLIC_BASE_URL = f"http://127.0.0.1:{server.server_address[1]}"
    return server


def connect(platform: str, emulator: ShopifyEmulator | WooEmulator) -> StoreConnection:
    tag = uuid.uuid4().hex[:8]
    tenant = create_tenant(slug=f"bench-sync-{tag}", name=f"Sync bench {tag}")
    netloc = emulator.base_url.removeprefix("http://")
    with tenant_context(tenant.id):
        if platform == Platform.SHOPIFY:
            fields = {
                "shop_domain": netloc,
                "access_token": Secret(TOKEN),
                "webhook_secret": Secret(SECRET),
            }
        else:
            fields = {
                "store_url": emulator.base_url,
                "consumer_key": KEY,
                "consumer_secret": Secret(WOO_SECRET),
            }
        connection = StoreConnection(tenant=tenant, platform=platform, **fields)
        connectors.prepare(connection)
        connection.full_clean()
        connectors.check_credentials(connection)
        connection.import_status = ImportStatus.RUNNING
        connection.save()
        connectors.register_webhooks(connection)
    return connection


def bench_import(platform: str, emulator: ShopifyEmulator | WooEmulator) -> StoreConnection:
    connection = connect(platform, emulator)
    started = time.perf_counter()
    imported = run_import(connection.tenant_id, connection.pk)
    took = time.perf_counter() - started
    with tenant_context(connection.tenant_id):
        items = CatalogItem.objects.count()
    waits = (
        f"{emulator.throttled} THROTTLED answers"
        if isinstance(emulator, ShopifyEmulator)
        else f"{emulator.limited} 429 answers"
    )
    print(
        f"[{platform}] imported {imported} products ({items} items) in {took:.1f} s: "
        f"{imported / took:.0f} products/s; {waits}"
    )
    return connection


def quoted_price(connection: StoreConnection, item_id: int) -> Decimal:
    payload = {
        "tenant_id": str(connection.tenant_id),
        "request_id": "bench",
        "conversation_id": 1,
        "item_id": item_id,
    }
    return Decimal(call_tool("catalog_get_item", payload).unwrap().price)


def bench_latency(connection: StoreConnection, shopify: ShopifyEmulator, changes: int) -> None:
    with tenant_context(connection.tenant_id):
        items = dict(
            ExternalProduct.objects.filter(connection=connection).values_list(
                "external_id", "item_id"
            )
        )
    rng = random.Random(11)
    products = rng.sample(sorted(items), min(changes, len(items)))
    latencies, missed = [], 0
    for n, external_id in enumerate(products):
        price = 1000 + (n * 37) % 4000
        started = time.perf_counter()
        shopify.set_price(int(external_id), f"{price}.00")
        deadline = started + 30
        while quoted_price(connection, items[external_id]) != price:
            if time.perf_counter() > deadline:
                missed += 1
                break
            time.sleep(0.002)
        else:
            latencies.append(time.perf_counter() - started)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"[shopify] webhook → bot quote, {len(latencies)} price changes: "
        f"p50 {statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000:.0f} ms; {missed} never seen within 30 s"
    )


def _drift(connection: StoreConnection, shopify: ShopifyEmulator) -> int:
    """Products whose price, stock or existence differ between the store and us (a sized
    product's stock is the sum of its sizes, on both sides)."""
    with tenant_context(connection.tenant_id):
        sized = dict(
            Variant.objects.filter(is_active=True)
            .values("item__sku")
            .annotate(total=Sum("stock"))
            .values_list("item__sku", "total")
        )
        ours = {
            sku: (price, sized.get(sku, stock))
            for sku, price, stock in CatalogItem.objects.filter(is_active=True).values_list(
                "sku", "price", "stock"
            )
        }
    theirs = {}
    for product in list(shopify.products.values()):
        variants = product.variants
        stock = sum(sum(v.levels.values()) for v in variants)
        theirs[f"SHOP-{product.id}"] = (min(v.price for v in variants), stock)
    wrong = sum(1 for sku, state in theirs.items() if ours.get(sku) != state)
    return wrong + len(set(ours) - set(theirs))


def bench_reconcile(connection: StoreConnection, shopify: ShopifyEmulator, drops: int) -> None:
    shopify.outbox.drop = True
    rng = random.Random(5)
    ids = sorted(shopify.products)
    kinds = {"price": 0, "stock": 0, "delete": 0, "create": 0}
    for n in range(drops):
        kind = rng.choices(list(kinds), weights=[5, 3, 1, 1])[0]
        kinds[kind] += 1
        if kind == "create":
            shopify.add_product(f"Dropped-webhook runner {n}", "2999.00")
            continue
        product = ids.pop(rng.randrange(len(ids)))
        if kind == "price":
            shopify.set_price(product, f"{rng.randrange(500, 5000)}.00")
        elif kind == "stock":
            shopify.set_stock(product, rng.randrange(0, 30))
        else:
            shopify.delete_product(product)
    before = _drift(connection, shopify)
    started = time.perf_counter()
    run = reconcile(connection.tenant_id, connection.pk)
    took = time.perf_counter() - started
    after = _drift(connection, shopify)
    print(
        f"[shopify] dropped {len(shopify.outbox.dropped)} webhooks over {drops} upstream "
        f"changes {kinds}; drifted products before reconcile: {before}"
    )
    print(
        f"[shopify] reconcile: checked {run.checked}, repaired {run.repaired} in {took:.1f} s; "
        f"drifted after: {after}; error: {run.error or 'none'}"
    )
    for line in run.drift[:8]:
        print(f"    {line}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--drops", type=int, default=300)
    parser.add_argument("--restore-rate", type=float, default=1000.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    print(f"load average at start: {os.getloadavg()}")
    shopify = ShopifyEmulator(
        "bench.myshopify.com", TOKEN, SECRET, bucket=2000 * 10, restore_rate=args.restore_rate
    ).start()
    woo = WooEmulator(KEY, WOO_SECRET).start()
    assert isinstance(shopify, ShopifyEmulator)
    assert isinstance(woo, WooEmulator)
    shopify.seed(args.items)
    woo.seed(args.items)
    celery_app.conf.task_always_eager = False
    server = serve()  # first: the webhooks are registered to its address
    shop = bench_import(Platform.SHOPIFY, shopify)
    bench_import(Platform.WOOCOMMERCE, woo)
    celery_app.control.purge()  # the imports' embedding tasks are not what we time
    with start_worker(
        celery_app,
        pool="threads",
        concurrency=args.workers,
        perform_ping_check=False,
        loglevel="WARNING",
    ):
        bench_latency(shop, shopify, args.changes)
    server.shutdown()
    bench_reconcile(shop, shopify, args.drops)
    print(f"load average at end: {os.getloadavg()}")
    celery_app.control.purge()
    shopify.stop()
    woo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
