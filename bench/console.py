"""Shop console benchmark: server time of the owner's pages at 10,000 orders and
100,000 products.

    .venv/bin/python bench/console.py [--products 100000] [--orders 10000] [--runs 40]

Builds (once; reused while the sizes match) the shop `bench-console` by bulk insert:
products (every tenth with two sizes), orders with a line each across all statuses,
a status history, open tickets and unmatched payments for the reconciliation queue.
Then times, through Django's full request handler as the shop's owner (session,
tenant context and RLS, nothing cached), each page RUNS times after a warm-up:
the home page (the day), order list, an order, product list, product list with an
admin search, a product, and the reconciliation list. Target: p95 at most 150 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
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


def time_pages(client: Client, urls: list[str], runs: int) -> tuple[list[float], int]:
    for url in urls[:3]:
        assert client.get(url).status_code == 200, url  # warm-up, and the page works
    times = []
    queries = 0
    for n in range(runs):
        url = urls[n % len(urls)]
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
        queries = max(queries, len(captured))
    return times, queries


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", type=int, default=100_000)
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(20)
    tenant = shop()
    started = time.perf_counter()
    build_products(tenant, args.products, rng)
    build_orders(tenant, args.orders, rng)
    with as_owner(), connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"data ready in {time.perf_counter() - started:.0f}s; load {os.getloadavg()}", flush=True)
    client = Client()
    client.force_login(get_user_model().objects.get(username=OWNER))
    print(
        f"{'page':22} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'queries':>8}"
        f"  target p95 <= {TARGET_MS}"
    )
    for name, urls in pages(tenant, rng).items():
        times, queries = time_pages(client, urls, args.runs)
        p95 = statistics.quantiles(times, n=20)[-1]
        mark = "ok" if p95 <= TARGET_MS else "OVER"
        print(
            f"{name:22} {statistics.median(times):8.1f} {p95:8.1f} {max(times):8.1f} "
            f"{queries:8d}  {mark}",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
