"""Payments benchmark: STK callbacks through the real endpoint and real Celery workers.

    TULIA_DATA_DIR=var/pay-bench .venv/bin/python bench/payment_callbacks.py \
        [--callbacks 2000] [--duplicates 0.3] [--clients 16] [--workers 4]

Builds one shop with pending STK pushes, then POSTs `--callbacks` Daraja callbacks
(shuffled; a `--duplicates` share of them are repeats of another callback) over HTTP to
a threaded WSGI server running the production URLconf. A Celery worker (threads, on
the Redis broker) processes them. Prints the ingest rate (HTTP answers per second), the
end-to-end rate (until every event is processed) and verifies exactly-once: one state
change and one customer message per payment, every duplicate recorded as such.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
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
logging.disable(logging.INFO)  # the worker and console sender log every task

import httpx  # noqa: E402
from celery.contrib.testing.worker import start_worker  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from payments.accounts import configure_mpesa  # noqa: E402
from payments.emulators.daraja import DarajaEmulator  # noqa: E402
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest  # noqa: E402
from payments.outcomes import stk_outcome  # noqa: E402
from payments.routes import callback_path  # noqa: E402
from tenants.context import tenant_context  # noqa: E402
from tenants.services import (  # noqa: E402
    create_tenant,
    get_or_create_customer,
    register_whatsapp_sender,
)
from tulia.celery import app as celery_app  # noqa: E402
from tulia.commerce.models import Order  # noqa: E402
from tulia.conversations.models import OutboundMessage  # noqa: E402

CODES = [0] * 14 + [1032, 1032, 1037, 1037, 1, 2001]  # mostly paid, every failure kind


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def setup_shop(pushes: int, daraja_url: str) -> tuple[str, list[tuple[str, int, Decimal]]]:
    """A fresh tenant with `pushes` pending STK payments: (checkout id, pk, amount)."""
    tag = uuid.uuid4().hex[:8]
    tenant = create_tenant(
        slug=f"bench-pay-{tag}", name=f"Bench {tag}", payment_methods=["mpesa_stk"]
    )
    register_whatsapp_sender(
        tenant.id,
        phone=f"+2547{random.randint(10_000_000, 99_999_999)}",
        account_sid="AC" + "c" * 32,
        auth_token="bench-token-123456",  # noqa: S106 - throwaway bench value
    )
    configure_mpesa(
        tenant.id,
        base_url=daraja_url,
        shortcode="174379",
        consumer_key="k",
        consumer_secret="s",  # noqa: S106 - throwaway bench value
        passkey="p",
        source_ip_check="off",
    )
    customers = [get_or_create_customer(tenant.id, f"07{12000000 + n}")[0] for n in range(50)]
    with tenant_context(tenant.id) as tid:
        orders = Order.objects.bulk_create(
            Order(
                tenant_id=tid,
                customer=customers[n % 50],
                reference=f"B{tag[:4]}{n:05d}".upper(),
                subtotal=Decimal(100 + n),
                total=Decimal(100 + n),
                status="pending_payment",
            )
            for n in range(pushes)
        )
        payments = PaymentRequest.objects.bulk_create(
            PaymentRequest(
                tenant_id=tid,
                order=o,
                customer_id=o.customer_id,
                method=PaymentMethod.MPESA_STK,
                idempotency_key=f"stk:{o.pk}:1",
                amount=o.total,
                provider_reference=f"ws_CO_bench_{tag}_{n}",
            )
            for n, o in enumerate(orders)
        )
    return str(tenant.id), [(p.provider_reference, p.pk, p.amount) for p in payments]


def callback_body(checkout_id: str, code: int, amount: Decimal, n: int) -> str:
    stk: dict[str, object] = {
        "MerchantRequestID": f"b-{n}",
        "CheckoutRequestID": checkout_id,
        "ResultCode": code,
        "ResultDesc": "bench",
    }
    if code == 0:
        stk["CallbackMetadata"] = {
            "Item": [
                {"Name": "Amount", "Value": float(amount)},
                {"Name": "MpesaReceiptNumber", "Value": f"BN{n:08d}"},
                {"Name": "PhoneNumber", "Value": 254712000000},
            ]
        }
    return json.dumps({"Body": {"stkCallback": stk}})


def serve() -> tuple[ThreadedWSGIServer, str]:
    server = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    return server, f"http://127.0.0.1:{port}"


def processed(tenant_id: str) -> Counter[str]:
    """Outcomes of the posted callbacks (the STK queries confirming them not counted)."""
    with tenant_context(tenant_id) as tid:
        callbacks = PaymentEvent.objects.filter(tenant_id=tid, kind=PaymentEvent.Kind.STK_CALLBACK)
        return Counter(callbacks.values_list("outcome", flat=True))


def all_decided(tenant_id: str, posted: int) -> bool:
    counts = processed(tenant_id)
    return sum(counts.values()) >= posted and not (counts["received"] or counts["verifying"])


def wait_for_messages(tenant_id: str, expected: int, timeout: float = 300) -> int:
    """Outcome messages are their own tasks: wait until every payment was told."""
    deadline = time.monotonic() + timeout
    while True:
        with tenant_context(tenant_id) as tid:
            told = OutboundMessage.objects.filter(tenant_id=tid).count()
        if told >= expected or time.monotonic() > deadline:
            return told
        time.sleep(0.2)


def verify(
    tenant_id: str, expected: Mapping[int, str], uniques: int, duplicates: int
) -> dict[str, int]:
    outcomes = processed(tenant_id)
    with tenant_context(tenant_id) as tid:
        rows = PaymentRequest.objects.filter(tenant_id=tid, pk__in=expected)
        wrong = sum(1 for p in rows if p.status != expected[p.pk] or p.notifications_sent != 1)
        messages = OutboundMessage.objects.filter(tenant_id=tid).count()
    checks = {
        "applied": outcomes["applied"],
        "duplicate": outcomes["duplicate"],
        "wrong_status_or_message_count": wrong,
        "messages": messages,
    }
    ok = (
        checks["applied"] == uniques
        and checks["duplicate"] == duplicates
        and wrong == 0
        and messages == uniques
    )
    checks["exactly_once"] = int(ok)
    return checks


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--callbacks", type=int, default=2000)
    parser.add_argument("--duplicates", type=float, default=0.3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    uniques = round(args.callbacks * (1 - args.duplicates))
    duplicates = args.callbacks - uniques
    # Success callbacks are confirmed by STK Query: the emulator knows every push's end.
    daraja = DarajaEmulator("k", "s", "p").start()
    assert isinstance(daraja, DarajaEmulator)
    tenant_id, pushes = setup_shop(uniques, daraja.base_url)
    rng = random.Random(7)
    plan = [(cid, pk, amount, rng.choice(CODES)) for cid, pk, amount in pushes]
    for cid, _, _, code in plan:
        daraja.record_push(cid, code)
    bodies = [callback_body(cid, code, amount, n) for n, (cid, _, amount, code) in enumerate(plan)]
    posts = bodies + [rng.choice(bodies) for _ in range(duplicates)]
    rng.shuffle(posts)
    expected = {pk: stk_outcome(code).status for _, pk, _, code in plan}

    server, base = serve()
    path = callback_path(tenant_id, "stk_callback")
    celery_app.conf.task_always_eager = False
    with start_worker(
        celery_app,
        pool="threads",
        concurrency=args.workers,
        perform_ping_check=False,
        loglevel="WARNING",
    ):
        started = time.perf_counter()
        with (
            httpx.Client(base_url=base, timeout=60) as http,
            ThreadPoolExecutor(args.clients) as pool,
        ):
            statuses = Counter(
                pool.map(
                    lambda b: (
                        http.post(
                            path, content=b, headers={"Content-Type": "application/json"}
                        ).status_code
                    ),
                    posts,
                )
            )
        answered = time.perf_counter() - started
        deadline = time.monotonic() + 600
        while not all_decided(tenant_id, len(posts)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)
        done = time.perf_counter() - started
        told = wait_for_messages(tenant_id, uniques)
        messaged = time.perf_counter() - started
    server.shutdown()
    daraja.stop()
    checks = verify(tenant_id, expected, uniques, duplicates)
    print(
        f"callbacks posted: {len(posts)} ({uniques} unique, {duplicates} duplicates), "
        f"{args.clients} HTTP clients, {args.workers} worker threads"
    )
    print(f"HTTP answers: {dict(statuses)}")
    print(f"ingest: {len(posts) / answered:.0f} callbacks/s (all answered in {answered:.2f} s)")
    print(f"end to end: {len(posts) / done:.0f} callbacks/s (all processed in {done:.2f} s)")
    print(f"messages queued: {told} in {messaged:.2f} s")
    print(f"verification: {checks}")
    summary = {
        "callbacks": len(posts),
        "ingest_per_s": round(len(posts) / answered),
        "processed_per_s": round(len(posts) / done),
        **checks,
    }
    print("summary: " + json.dumps(summary))
    return 0 if checks["exactly_once"] else 1


if __name__ == "__main__":
    sys.exit(main())
