"""Store sync fixtures: the two store emulators, connected shops, signed posting."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

import tulia.catalog_sync
from tenants.context import tenant_context
from tenants.crypto import Secret
from tenants.models import Tenant
from tenants.services import get_or_create_customer
from tests.payments.conftest import daraja, post_callback  # noqa: F401 - shared fixtures
from tulia.catalog_sync import connectors
from tulia.catalog_sync.emulators.shopify import ShopifyEmulator
from tulia.catalog_sync.emulators.webhooks import Delivery, sign
from tulia.catalog_sync.emulators.woocommerce import WooEmulator
from tulia.catalog_sync.models import Platform, StoreConnection
from tulia.celery import app as celery_app
from tulia.commerce.models import CatalogItem, Order, OrderLine, OrderStatus, Variant

FIXTURES = Path(tulia.catalog_sync.__file__).parent / "fixtures"
SHOP_TOKEN, APP_SECRET = "shpat_kicks_0123456789", "shpss_kicks_app_secret"
WOO_KEY, WOO_SECRET = "ck_kicks_0123456789", "cs_kicks_0123456789"


@pytest.fixture(autouse=True)
def eager_celery() -> Iterator[None]:
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = before


@pytest.fixture
def shopify() -> Iterator[ShopifyEmulator]:
    with ShopifyEmulator("kicks.myshopify.com", SHOP_TOKEN, APP_SECRET) as emulator:
        assert isinstance(emulator, ShopifyEmulator)
        emulator.outbox.drop = True  # tests post the deliveries themselves, through Client
        yield emulator


@pytest.fixture
def woo() -> Iterator[WooEmulator]:
    with WooEmulator(WOO_KEY, WOO_SECRET) as emulator:
        assert isinstance(emulator, WooEmulator)
        emulator.outbox.drop = True
        yield emulator


def connect(tenant: Tenant, platform: str, **fields: Any) -> StoreConnection:
    """What the admin's save does: check, store, register webhooks."""
    with tenant_context(tenant.id):
        connection = StoreConnection(tenant=tenant, platform=platform, **fields)
        connectors.prepare(connection)
        connection.full_clean()
        connectors.check_credentials(connection)
        connection.save()
        connectors.register_webhooks(connection)
        return connection


def host_of(emulator: ShopifyEmulator | WooEmulator) -> str:
    return urlsplit(emulator.base_url).netloc


@pytest.fixture
def shopify_shop(tenant: Tenant, shopify: ShopifyEmulator) -> StoreConnection:
    return connect(
        tenant,
        Platform.SHOPIFY,
        shop_domain=host_of(shopify),
        access_token=Secret(SHOP_TOKEN),
        webhook_secret=Secret(APP_SECRET),
    )


@pytest.fixture
def woo_shop(tenant: Tenant, woo: WooEmulator) -> StoreConnection:
    return connect(
        tenant,
        Platform.WOOCOMMERCE,
        store_url=woo.base_url,
        consumer_key=WOO_KEY,
        consumer_secret=Secret(WOO_SECRET),
    )


@pytest.fixture
def replay(django_capture_on_commit_callbacks: Any) -> Callable[[Delivery], int]:
    """Post an emulator's delivery through our real webhook view (tasks run after commit)."""

    def post(delivery: Delivery) -> int:
        headers = {k: v for k, v in delivery.headers.items() if k.lower() != "content-type"}
        with django_capture_on_commit_callbacks(execute=True):
            answer = Client().post(
                urlsplit(delivery.url).path,
                data=delivery.body,
                content_type="application/json",
                headers=headers,
            )
        return answer.status_code

    return post


def fixture_body(platform: str, name: str, **swap: Any) -> bytes:
    text = (FIXTURES / platform / name).read_text()
    for old, new in swap.items():
        text = text.replace(f"{{{old}}}", str(new))
    json.loads(text)
    return text.encode()


@pytest.fixture
def post_signed(django_capture_on_commit_callbacks: Any) -> Callable[..., int]:
    def post(
        connection: StoreConnection, topic: str, body: bytes, delivery_id: str, *, secret: str = ""
    ) -> int:
        with django_capture_on_commit_callbacks(execute=True):
            return _post_signed(connection, topic, body, delivery_id, secret=secret)

    return post


def _post_signed(
    connection: StoreConnection, topic: str, body: bytes, delivery_id: str, *, secret: str = ""
) -> int:
    secret = secret or connection.webhook_secret.reveal()
    url = urlsplit(connectors.webhook_url(connection)).path
    if connection.platform == Platform.SHOPIFY:
        headers = {
            "X-Shopify-Topic": topic,
            "X-Shopify-Webhook-Id": delivery_id,
            "X-Shopify-Hmac-Sha256": sign(secret, body),
            "X-Shopify-Shop-Domain": "kicks.myshopify.com",
        }
    else:
        headers = {
            "X-WC-Webhook-Topic": topic,
            "X-WC-Webhook-Delivery-ID": delivery_id,
            "X-WC-Webhook-Signature": sign(secret, body),
        }
    answer = Client().post(url, data=body, content_type="application/json", headers=headers)
    return answer.status_code


@pytest.fixture
def make_customer_order() -> Callable[..., Order]:
    """A customer's open (pending payment) order for one of an item (or of a variant)."""

    def build(item: CatalogItem, variant: Variant | None = None) -> Order:
        customer, _ = get_or_create_customer(item.tenant_id, "0712345678")
        with tenant_context(item.tenant_id) as tid:
            order = Order.objects.create(
                tenant_id=tid,
                customer=customer,
                reference="SYNC-1",
                status=OrderStatus.PENDING_PAYMENT,
                subtotal=item.price,
                total=item.price,
            )
            OrderLine.objects.create(
                tenant_id=tid,
                order=order,
                item=item,
                variant=variant,
                name=item.name,
                sku=item.sku,
                unit_price=item.price,
                quantity=1,
                line_total=item.price,
            )
            return order

    return build
