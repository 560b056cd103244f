"""Shop console benchmark: server time of the owner's pages at 10,000 orders and
100,000 products.

    .venv/bin/python bench/console.py [--products 100000] [--orders 10000] [--runs 40]
                                      [--only PAGE] [--profile PAGE]

Builds (once; reused while the sizes match) the shop `bench-console` by bulk insert:
products (every tenth with two sizes), orders with a line each across all statuses,
a status history, open tickets and unmatched payments for the reconciliation queue.
Then times, through Django's full request handler as the shop's owner (session,
tenant context and RLS, nothing cached), each page RUNS times after a warm-up:
the home page (the day), order list, an order, product list, product list with an
admin search, a product, and the reconciliation list. Target: p95 at most 150 ms.

Each page prints wall time (p50, p95), this process's CPU time for the request (p50,
p95), the SQL time Django waited for (p50) and the query count. On a shared machine
wall time grows with the load; CPU time hardly does, so read both. --only PAGE times
some pages; --profile PAGE prints a cProfile of one. Seeding a fresh data dir took
115 s at load ~5 and 209 s at load ~10 (2 cores); later runs reuse it.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "bench")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus  # noqa: E402
from tenants.context import tenant_context  # noqa: E402
from tenants.models import Customer, Tenant  # noqa: E402
from tenants.services import add_staff_member, create_tenant  # noqa: E402
from tulia.commerce.models import (  # noqa: E402
    CatalogItem,
    Order,
    OrderLine,
    OrderStatus,
    OrderStatusEvent,
    Variant,
)
from tulia.db_roles import as_owner  # noqa: E402

SLUG = "bench-console"
OWNER = "bench_console_owner"
PASSWORD = "bench-Console-2026"  # noqa: S105 - a local bench login
BATCH = 5000
TARGET_MS = 150
STATUSES = [s.value for s in OrderStatus]


def shop() -> Tenant:
    tenant = Tenant.objects.filter(slug=SLUG).first()
    if tenant is None:
        tenant = create_tenant(slug=SLUG, name="Bench Console Kicks", payment_methods=["mpesa_c2b"])
        add_staff_member(tenant.id, username=OWNER, password=PASSWORD, role="owner")
    return tenant


def build_products(tenant: Tenant, count: int, rng: random.Random) -> None:
    with tenant_context(tenant.id) as tid:
        present = CatalogItem.objects.filter(tenant_id=tid).count()
    for start in range(present, count, BATCH):
        with tenant_context(tenant.id) as tid:
            items = CatalogItem.objects.bulk_create(
                CatalogItem(
                    tenant_id=tid, sku=f"P{n}", name=f"Shoe model {n} {WORDS[n % len(WORDS)]}",
                    brand=rng.choice(BRANDS), price=Decimal(rng.randrange(500, 20000)),
                    stock=rng.randrange(0, 9), search_text=f"shoe model {n} {WORDS[n % 8]}",
                )
                for n in range(start, min(start + BATCH, count))
            )  # fmt: skip
            Variant.objects.bulk_create(
                Variant(
                    tenant_id=tid, item=item, sku=f"{item.sku}-{size}",
                    attributes={"size": str(size)}, stock=rng.randrange(0, 5),
                )
                for item in items[::10]
                for size in (41, 42)
            )  # fmt: skip
        print(f"products: {min(start + BATCH, count)}", flush=True)


def build_orders(tenant: Tenant, count: int, rng: random.Random) -> None:
    with tenant_context(tenant.id) as tid:
        present = Order.objects.filter(tenant_id=tid).count()
        if present >= count:
            return
        customers = Customer.objects.bulk_create(
            Customer(tenant_id=tid, phone_e164=f"+2547{present + n:08d}", display_name=f"C{n}")
            for n in range(500)
        )
        items = list(CatalogItem.objects.filter(tenant_id=tid).order_by("pk")[:2000])
        now = timezone.now()
        for start in range(present, count, BATCH):
            orders = Order.objects.bulk_create(
                _order(tid, n, rng.choice(customers), rng, now)
                for n in range(start, min(start + BATCH, count))
            )
            OrderLine.objects.bulk_create(
                OrderLine(
                    tenant_id=tid, order=o, item=(item := rng.choice(items)), name=item.name,
                    sku=item.sku, unit_price=o.total, quantity=1, line_total=o.total,
                )
                for o in orders
            )  # fmt: skip
            OrderStatusEvent.objects.bulk_create(
                OrderStatusEvent(tenant_id=tid, order=o, from_status="", to_status=o.status)
                for o in orders
            )
            print(f"orders: {min(start + BATCH, count)}", flush=True)
        _unmatched_money(tid, 200, now)


def _order(tid: Any, n: int, customer: Customer, rng: random.Random, now: Any) -> Order:
    total = Decimal(rng.randrange(500, 20000))
    status = rng.choice(STATUSES)
    paid = status not in ("draft", "pending_payment", "cancelled")
    return Order(
        tenant_id=tid, customer=customer, reference=f"BC-{n:06d}", status=status,
        subtotal=total, total=total, paid_at=now if paid else None,
    )  # fmt: skip


def _unmatched_money(tid: Any, count: int, now: Any) -> None:
    if PaymentRequest.objects.filter(tenant_id=tid, idempotency_key__startswith="c2b:BENCH"):
        return  # made by an earlier (smaller) build
    for n in range(count):
        payment = PaymentRequest.objects.create(
            tenant_id=tid, method=PaymentMethod.MPESA_C2B, idempotency_key=f"c2b:BENCH{n}",
            amount=Decimal(1500), account_reference="TYPO", provider_reference=f"BENCH{n}",
            status=PaymentStatus.UNKNOWN, receipt=f"BENCH{n}", paid_amount=Decimal(1500),
            completed_at=now, needs_review=True, review_reason="no order",
        )  # fmt: skip
        PaymentEvent.objects.create(
            tenant_id=tid, payment=payment, kind=PaymentEvent.Kind.C2B_CONFIRMATION,
            reference=f"BENCH{n}", raw_body=json.dumps({"TransID": f"BENCH{n}"}),
            outcome=PaymentEvent.Outcome.UNMATCHED, needs_review=True, note="no order",
        )  # fmt: skip


WORDS = ["runner", "court", "high", "low", "trail", "slide", "boot", "classic"]
BRANDS = ["Nike", "Adidas", "Puma", "Bata", "Vans", "Reebok"]


def pages(tenant: Tenant, rng: random.Random) -> dict[str, list[str]]:
    with tenant_context(tenant.id) as tid:
        orders = list(Order.objects.filter(tenant_id=tid).values_list("pk", flat=True)[:5000])
        sized = list(Variant.objects.filter(tenant_id=tid).values_list("item_id", flat=True)[:2000])
        plain = list(CatalogItem.objects.filter(tenant_id=tid).values_list("pk", flat=True)[:2000])
    return {
        "home (the day)": ["/admin/"],
        "order list": ["/admin/commerce/order/", "/admin/commerce/order/?todo=ship"],
        "order page": [f"/admin/commerce/order/{rng.choice(orders)}/change/" for _ in range(20)],
        "product list": ["/admin/commerce/catalogitem/", "/admin/commerce/catalogitem/?p=5"],
        "product search": [
            f"/admin/commerce/catalogitem/?q={q}"
            for q in ("model 4242", "P77", "shoe model 9", "runner")
        ],
        "product page": [
            f"/admin/commerce/catalogitem/{rng.choice(sized + plain)}/change/" for _ in range(20)
        ],
        "reconciliation list": ["/admin/payments/paymenttoreconcile/"],
    }


@dataclass
class Timed:
    """One page's runs: wall and CPU time of the request in this process, and its SQL.

    CPU time (this thread's, where the test client runs Django) is what the page costs
    the server's Python; other processes on a shared machine stretch wall time but
    hardly this. SQL time is the wall time Django waited on PostgreSQL."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    sql: list[float] = field(default_factory=list)
    queries: int = 0


def time_pages(client: Client, urls: list[str], runs: int) -> Timed:
    for url in urls[:3]:
        assert client.get(url).status_code == 200, url  # warm-up, and the page works
    timed = Timed()
    for n in range(runs):
        url = urls[n % len(urls)]
        with CaptureQueriesContext(connection) as captured:
            cpu, wall = time.thread_time(), time.perf_counter()
            response = client.get(url)
            timed.wall.append((time.perf_counter() - wall) * 1000)
            timed.cpu.append((time.thread_time() - cpu) * 1000)
        assert response.status_code == 200, url
        timed.sql.append(sum(float(q["time"]) for q in captured.captured_queries) * 1000)
        timed.queries = max(timed.queries, len(captured))
    return timed


def profile_page(client: Client, url: str, runs: int) -> None:
    """cProfile of one page (--profile NAME): where its server time goes."""
    client.get(url)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        client.get(url)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats("tulia|payments|tenants|date_hier|admin_list", 30)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def report(name: str, timed: Timed) -> None:
    mark = "ok" if p95(timed.wall) <= TARGET_MS else "OVER"
    print(
        f"{name:22} {statistics.median(timed.wall):7.1f} {p95(timed.wall):7.1f} "
        f"{statistics.median(timed.cpu):7.1f} {p95(timed.cpu):7.1f} "
        f"{statistics.median(timed.sql):7.1f} {timed.queries:7d}  {mark}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--only", help="time only the pages whose name contains this")
    parser.add_argument("--profile", help="cProfile the first page whose name contains this")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(20)
    tenant = shop()
    started = time.perf_counter()
    build_products(tenant, args.products, rng)
    build_orders(tenant, args.orders, rng)
    with as_owner(), connection.cursor() as cursor:
        # A shop's tables are read far more than bulk-written: VACUUM sets the hint bits
        # and visibility map that a freshly bulk-inserted table lacks (the first reads
        # would write them, timing the seeding instead of the pages).
        cursor.execute("VACUUM (ANALYZE)")
    print(f"data ready in {time.perf_counter() - started:.0f}s; load {os.getloadavg()}", flush=True)
    client = Client()
    client.force_login(get_user_model().objects.get(username=OWNER))
    chosen = {
        name: urls
        for name, urls in pages(tenant, rng).items()
        if name.find(args.profile or args.only or "") >= 0
    }
    if args.profile:
        name, urls = next(iter(chosen.items()))
        print(f"profile of {name}: {urls[0]}")
        profile_page(client, urls[0], args.runs)
        return 0
    print(f"load average before: {os.getloadavg()}")
    print(
        f"{'':22} {'wall ms':>15} {'CPU ms':>15} {'SQL ms':>7} {'queries':>7}\n"
        f"{'page':22} {'p50':>7} {'p95':>7} {'p50':>7} {'p95':>7} {'p50':>7}"
        f"  target: wall p95 <= {TARGET_MS}"
    )
    for name, urls in chosen.items():
        report(name, time_pages(client, urls, args.runs))
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
