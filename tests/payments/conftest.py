"""Payments fixtures: the Daraja and PesaPal emulators, configured shops, orders, posting."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

import payments
from payments.accounts import configure_mpesa, configure_pesapal
from payments.emulators.daraja import DarajaEmulator, StatusScript
from payments.emulators.pesapal import PesapalEmulator
from payments.models import PaymentEvent, PaymentRequest
from payments.routes import callback_path
from tenants.context import tenant_context
from tenants.crypto import Secret
from tenants.models import Tenant
from tenants.services import get_or_create_customer, update_tenant
from tulia.celery import app as celery_app
from tulia.commerce.models import Order

ROOT = Path(payments.__file__).parent
MPESA = ROOT / "mpesa" / "fixtures"
PESAPAL = ROOT / "pesapal" / "fixtures"
# The ids written in the fixture files, swapped for the real ones of a test.
FIXTURE_CHECKOUT_ID = "ws_CO_22112026083015123456789"
FIXTURE_TRACKING_ID = "b8f0c6d2-5a1e-4c7b-9d3f-2e6a8c4b1f09"
FIXTURE_REFERENCE = "KIC-7H2Q"
SANDBOX_PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919"
# The shop's Daraja API initiator (Transaction Status confirms every C2B payment).
INITIATOR, CREDENTIAL = "tulia-api", "initiator-credential-Kq81"


def fixture_text(path: Path, **swap: str) -> str:
    text = path.read_text()
    for old, new in swap.items():
        text = text.replace(old, new)
    return text


def mpesa_fixture(name: str, checkout_id: str = FIXTURE_CHECKOUT_ID, **swap: str) -> str:
    return fixture_text(MPESA / name, **{FIXTURE_CHECKOUT_ID: checkout_id, **swap})


def pesapal_fixture(name: str, **swap: str) -> str:
    return fixture_text(PESAPAL / name, **swap)


@pytest.fixture(autouse=True)
def eager_celery() -> Iterator[None]:
    """Tasks run in-process at enqueue time (after commit); the bench uses real workers."""
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = before


@pytest.fixture
def daraja() -> Iterator[DarajaEmulator]:
    with DarajaEmulator("ck-kicks", "cs-kicks-secret", SANDBOX_PASSKEY) as emulator:
        assert isinstance(emulator, DarajaEmulator)
        emulator.add_initiator(INITIATOR, CREDENTIAL)
        # No live server in most tests: verdicts wait for `deliver_status_results`.
        emulator.default_status_script = StatusScript(deliver=False)
        yield emulator


@pytest.fixture
def pesapal() -> Iterator[PesapalEmulator]:
    with PesapalEmulator("pk-kicks", "ps-kicks-secret") as emulator:
        assert isinstance(emulator, PesapalEmulator)
        yield emulator


def equip(tenant: Tenant, daraja_url: str, pesapal_url: str = "", **mpesa: Any) -> Tenant:
    """Give a tenant all three methods with accounts on the emulators."""
    update_tenant(tenant, payment_methods=["mpesa_stk", "mpesa_c2b", "pesapal_card"])
    configure_mpesa(
        tenant.id,
        base_url=daraja_url,
        shortcode="174379",
        consumer_key="ck-kicks",
        consumer_secret="cs-kicks-secret",
        passkey=SANDBOX_PASSKEY,
        source_ip_check="off",
        **{"initiator_name": INITIATOR, "security_credential": Secret(CREDENTIAL), **mpesa},
    )
    if pesapal_url:
        configure_pesapal(
            tenant.id,
            base_url=pesapal_url,
            consumer_key="pk-kicks",
            consumer_secret="ps-kicks-secret",
        )
    return tenant


@pytest.fixture
def shop(tenant: Tenant, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Tenant:
    return equip(tenant, daraja.base_url, pesapal.base_url)


@pytest.fixture
def other_shop(stranger: Tenant, daraja: DarajaEmulator, pesapal: PesapalEmulator) -> Tenant:
    return equip(stranger, daraja.base_url, pesapal.base_url)


MakeOrder = Callable[..., Order]


@pytest.fixture
def make_order() -> MakeOrder:
    counter = iter(range(1, 100_000))

    def build(
        tenant: Tenant, total: int | str = 1500, *, phone: str = "0712345678", ref: str = ""
    ) -> Order:
        customer, _ = get_or_create_customer(tenant.id, phone)
        with tenant_context(tenant.id) as tid:
            amount = Decimal(total)
            return Order.objects.create(
                tenant_id=tid,
                customer=customer,
                reference=ref or f"T{next(counter):04d}{tenant.slug[:2].upper()}",
                subtotal=amount,
                total=amount,
            )

    return build


Post = Callable[..., Any]


@pytest.fixture
def post_callback(client: Client, django_capture_on_commit_callbacks: Any) -> Post:
    """POST a raw body to a tenant's callback URL, running the enqueued tasks."""

    def post(tenant: Tenant, name: str, body: str, **extra: Any) -> Any:
        path = callback_path(tenant.id, name)
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, body, content_type="application/json", **extra)

    return post


@pytest.fixture
def deliver_status_results(
    client: Client, daraja: DarajaEmulator, django_capture_on_commit_callbacks: Any
) -> Callable[[], list[Any]]:
    """Post the emulator's waiting Transaction Status verdicts to their URLs (in order)."""
    from urllib.parse import urlsplit

    def deliver() -> list[Any]:
        answers = []
        while daraja.status_results:
            url, body = daraja.status_results.pop(0)
            with django_capture_on_commit_callbacks(execute=True):
                answers.append(
                    client.post(
                        urlsplit(url).path, json.dumps(body), content_type="application/json"
                    )
                )
        return answers

    return deliver


def payment_of(tenant: Tenant, pk: int) -> PaymentRequest:
    with tenant_context(tenant.id) as tid:
        return PaymentRequest.objects.get(tenant_id=tid, pk=pk)


def order_of(tenant: Tenant, pk: int | None) -> Order:
    assert pk is not None, "the payment has no order"
    with tenant_context(tenant.id) as tid:
        return Order.objects.get(tenant_id=tid, pk=pk)


def events_of(tenant: Tenant, **filters: Any) -> list[PaymentEvent]:
    with tenant_context(tenant.id) as tid:
        return list(PaymentEvent.objects.filter(tenant_id=tid, **filters).order_by("id"))


def outbound_bodies(tenant: Tenant) -> list[str]:
    from tulia.conversations.models import OutboundMessage

    with tenant_context(tenant.id) as tid:
        return list(
            OutboundMessage.objects.filter(tenant_id=tid)
            .order_by("id")
            .values_list("body", flat=True)
        )


def as_json(text: str) -> Any:
    return json.loads(text)


@pytest.fixture
def real_worker(transactional_db: Any) -> Iterator[Any]:
    """A real Celery worker (threads) on the embedded Redis broker, tasks not eager.

    It consumes a queue of its own, so parallel test processes sharing the broker never
    run each other's tasks against the wrong test database.
    """
    from uuid import uuid4

    from celery.contrib.testing.worker import start_worker

    before = celery_app.conf.task_default_queue
    before_eager = celery_app.conf.task_always_eager
    queue = f"payments-test-{uuid4().hex[:12]}"
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        with start_worker(
            celery_app,
            pool="threads",
            concurrency=4,
            perform_ping_check=False,
            loglevel="WARNING",
            queues=[queue],
        ) as worker:
            yield worker
    finally:
        celery_app.conf.task_default_queue = before
        celery_app.conf.task_always_eager = before_eager


def wait_until(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
