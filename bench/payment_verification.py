"""What confirming each payment with the provider costs: callback received → order paid.

    TULIA_DATA_DIR=var/pay-bench .venv/bin/python bench/payment_verification.py \
        [--payments 20] [--workers 4] [--stk-query-lag 0] [--status-delay 0]

One shop on the Daraja and PesaPal emulators, a threaded WSGI server with the
production URLconf as its public URL, and a real Celery worker (threads, Redis broker).
Payments run one at a time, so each figure is a latency, not a queueing effect:

- STK: the emulator delivers the success callback; the worker confirms it by STK Push
  Query (retried with backoff while the query says "being processed");
- C2B: the emulator takes a Paybill payment and posts the confirmation; the worker asks
  Transaction Status, whose verdict the emulator posts to our ResultURL;
- PesaPal: the emulator sends the IPN; the worker asks GetTransactionStatus (this check
  existed before and is shown for comparison).

Printed per path: p50/p95 of callback received → order paid, and of the verification
part (claim held → order paid). With the emulators' delays at 0 the figures are our own
overhead; `--stk-query-lag` and `--status-delay` add the provider's slowness.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
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
logging.disable(logging.WARNING)  # suspected-forgery lines would be expected noise here

from celery.contrib.testing.worker import start_worker  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from payments.accounts import configure_mpesa, configure_pesapal  # noqa: E402
from payments.emulators.daraja import DarajaEmulator, StatusScript, StkScript  # noqa: E402
from payments.emulators.pesapal import PesapalEmulator  # noqa: E402
from payments.models import PaymentEvent, PaymentRequest  # noqa: E402
from payments.mpesa.c2b import register_c2b_urls  # noqa: E402
from payments.mpesa.stk import initiate_stk_push  # noqa: E402
from payments.pesapal.checkout import create_checkout  # noqa: E402
from tenants.context import tenant_context  # noqa: E402
from tenants.crypto import Secret  # noqa: E402
from tenants.services import (  # noqa: E402
    create_tenant,
    get_or_create_customer,
    register_whatsapp_sender,
)
from tulia.celery import app as celery_app  # noqa: E402
from tulia.commerce.models import Order  # noqa: E402

SHORTCODE = "174379"
PASSKEY = "bench-passkey"
CLAIMS = {
    "stk": PaymentEvent.Kind.STK_CALLBACK,
    "c2b": PaymentEvent.Kind.C2B_CONFIRMATION,
    "pesapal": PaymentEvent.Kind.PESAPAL_IPN,
}


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass(frozen=True)
class Sample:
    total_ms: float  # claim received → order paid
    verify_ms: float  # claim processed (held, or checked at once) → order paid


def serve() -> tuple[ThreadedWSGIServer, str]:
    server = ThreadedWSGIServer(("127.0.0.1", 0), _QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def setup_shop(daraja: DarajaEmulator, pesapal: PesapalEmulator) -> str:
    tag = uuid.uuid4().hex[:8]
    tenant = create_tenant(
        slug=f"bench-verify-{tag}",
        name=f"Bench {tag}",
        payment_methods=["mpesa_stk", "mpesa_c2b", "pesapal_card"],
    )
    register_whatsapp_sender(
        tenant.id,
        phone=f"+2547{random.randint(10_000_000, 99_999_999)}",
        account_sid="AC" + "d" * 32,
        auth_token="bench-token-123456",  # noqa: S106 - throwaway bench value
    )
    configure_mpesa(
        tenant.id,
        base_url=daraja.base_url,
        shortcode=SHORTCODE,
        consumer_key="bench",
        consumer_secret=Secret("bench-secret"),
        passkey=Secret(PASSKEY),
        source_ip_check="off",
        initiator_name="bench-api",
        security_credential=Secret("bench-credential"),
    )
    configure_pesapal(
        tenant.id,
        base_url=pesapal.base_url,
        consumer_key="bench",
        consumer_secret=Secret("bench-secret"),
    )
    register_c2b_urls(tenant.id)
    return str(tenant.id)


def new_order(tenant_id: str, total: int) -> Order:
    customer, _ = get_or_create_customer(tenant_id, "0712345678")
    with tenant_context(tenant_id) as tid:
        return Order.objects.create(
            tenant_id=tid,
            customer=customer,
            reference=f"V{uuid.uuid4().hex[:7].upper()}",
            subtotal=Decimal(total),
            total=Decimal(total),
        )


def wait_paid(tenant_id: str, order_id: int, timeout: float = 120) -> Order:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with tenant_context(tenant_id) as tid:
            order = Order.objects.get(tenant_id=tid, pk=order_id)
        if order.paid_at is not None:
            return order
        time.sleep(0.01)
    raise TimeoutError(f"order {order_id} not paid within {timeout} s")


def sample(tenant_id: str, path: str, order: Order) -> Sample:
    """Timings from the stored records (the database clock for every timestamp)."""
    paid = wait_paid(tenant_id, order.pk)
    with tenant_context(tenant_id) as tid:
        payment = PaymentRequest.objects.filter(tenant_id=tid, order_id=order.pk).latest("id")
        claim = payment.events.filter(kind=CLAIMS[path]).order_by("received_at").first()
    assert claim is not None
    assert claim.processed_at is not None
    assert paid.paid_at is not None
    total = (paid.paid_at - claim.received_at).total_seconds() * 1000
    verify = (paid.paid_at - claim.processed_at).total_seconds() * 1000
    return Sample(total, max(verify, 0.0))


def pay_stk(tenant_id: str, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Order:
    order = new_order(tenant_id, 1500)
    daraja.script(result_code=0)
    initiate_stk_push(tenant_id, order.pk, confirmed_amount=Decimal(1500))
    return order


def pay_c2b(tenant_id: str, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Order:
    order = new_order(tenant_id, 1500)
    daraja.simulate_c2b(SHORTCODE, "1500.00", order.reference)
    return order


def pay_card(tenant_id: str, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Order:
    order = new_order(tenant_id, 2300)
    payment = create_checkout(tenant_id, order.pk, confirmed_amount=Decimal(2300))
    threading.Thread(
        target=pesapal.settle, args=(payment.provider_reference,), kwargs={"paid": True}
    ).start()
    return order


PATHS: dict[str, Callable[[str, DarajaEmulator, PesapalEmulator], Order]] = {
    "stk": pay_stk,
    "c2b": pay_c2b,
    "pesapal": pay_card,
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(path: str, samples: list[Sample]) -> dict[str, float]:
    totals = [s.total_ms for s in samples]
    verifies = [s.verify_ms for s in samples]
    figures = {
        "p50_ms": round(statistics.median(totals), 1),
        "p95_ms": round(percentile(totals, 0.95), 1),
        "verify_p50_ms": round(statistics.median(verifies), 1),
        "verify_p95_ms": round(percentile(verifies, 0.95), 1),
    }
    print(
        f"{path:8s} callback→paid p50 {figures['p50_ms']:8.1f} ms  p95 {figures['p95_ms']:8.1f} ms"
        f"   | verification p50 {figures['verify_p50_ms']:8.1f} ms"
        f"  p95 {figures['verify_p95_ms']:8.1f} ms   (n={len(samples)})"
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--payments", type=int, default=20, help="per path")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--stk-query-lag", type=float, default=0.0)
    parser.add_argument("--status-delay", type=float, default=0.0)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    server, base = serve()
    settings.PUBLIC_BASE_URL = base  # the emulators call this server back
    daraja = DarajaEmulator("bench", "bench-secret", PASSKEY).start()
    pesapal = PesapalEmulator("bench", "bench-secret").start()
    assert isinstance(daraja, DarajaEmulator)
    assert isinstance(pesapal, PesapalEmulator)
    daraja.default_script = StkScript(result_code=0)
    daraja.default_status_script = StatusScript(delay=args.status_delay)
    daraja.query_lag = args.stk_query_lag
    tenant_id = setup_shop(daraja, pesapal)
    celery_app.conf.task_always_eager = False
    results: dict[str, dict[str, float]] = {}
    with start_worker(
        celery_app,
        pool="threads",
        concurrency=args.workers,
        perform_ping_check=False,
        loglevel="WARNING",
    ):
        for path, pay in PATHS.items():
            samples = []
            for _ in range(args.payments):
                order = pay(tenant_id, daraja, pesapal)
                samples.append(sample(tenant_id, path, order))
            results[path] = report(path, samples)
    server.shutdown()
    daraja.stop()
    pesapal.stop()
    print(
        f"emulators: STK query lag {args.stk_query_lag} s, "
        f"Transaction Status result delay {args.status_delay} s"
    )
    print("summary: " + json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
