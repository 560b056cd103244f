"""Connecting a store, and the ways a store address could be turned on our network."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ValidationError

from tenants.context import tenant_context
from tenants.crypto import Secret
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import ImportStatus, Platform, StoreConnection
from tulia.catalog_sync.sync import begin_import, get_connection
from tulia.netguard import request_public

from .conftest import APP_SECRET, SHOP_TOKEN, WOO_KEY, WOO_SECRET, connect, host_of

pytestmark = pytest.mark.django_db


def _shopify(tenant, domain: str) -> StoreConnection:
    return connect(
        tenant,
        Platform.SHOPIFY,
        shop_domain=domain,
        access_token=Secret(SHOP_TOKEN),
        webhook_secret=Secret(APP_SECRET),
    )


def _woo(tenant, url: str) -> StoreConnection:
    return connect(
        tenant,
        Platform.WOOCOMMERCE,
        store_url=url,
        consumer_key=WOO_KEY,
        consumer_secret=Secret(WOO_SECRET),
    )


def test_credentials_are_stored_encrypted(tenant, shopify_shop) -> None:
    from django.db import connection as db

    with tenant_context(tenant.id), db.cursor() as cursor:
        cursor.execute("SELECT access_token, webhook_secret FROM catalog_sync_storeconnection")
        stored = cursor.fetchone()
    assert all(value.startswith("fernet:") for value in stored)
    assert SHOP_TOKEN not in "".join(stored)
    assert SHOP_TOKEN not in repr(shopify_shop.access_token)


def test_connecting_registers_the_webhooks(shopify, shopify_shop, woo, woo_shop) -> None:
    assert {topic for topic, _ in shopify.subscriptions} == {
        "PRODUCTS_CREATE",
        "PRODUCTS_UPDATE",
        "PRODUCTS_DELETE",
        "INVENTORY_LEVELS_UPDATE",
    }
    assert all(str(shopify_shop.webhook_token) in url for _, url in shopify.subscriptions)
    assert {s.topic for s in woo.subscriptions} >= {"product.updated", "product.deleted"}
    assert all(s.secret == woo_shop.webhook_secret.reveal() for s in woo.subscriptions)


def test_a_wrong_token_is_refused_when_connecting(tenant, shopify) -> None:
    with pytest.raises(SyncError, match="credentials"):
        connect(
            tenant,
            Platform.SHOPIFY,
            shop_domain=host_of(shopify),
            access_token=Secret("shpat_wrong"),
            webhook_secret=Secret(APP_SECRET),
        )


def test_a_store_in_another_currency_is_refused(tenant, woo) -> None:
    woo.currency = "USD"
    with pytest.raises(SyncError, match="USD"):
        _woo(tenant, woo.base_url)


@pytest.mark.parametrize(
    "domain",
    [
        "kicks.example.com",
        "kicks.myshopify.com.evil.io",
        "evil.io/kicks.myshopify.com",
        "10.0.0.5",
        "169.254.169.254",
        "kicks.myshopify.com@evil.io",
    ],
)
def test_only_myshopify_domains_are_accepted(tenant, settings, domain) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    with pytest.raises(ValidationError):
        _shopify(tenant, domain)


@pytest.mark.parametrize(
    "url",
    [
        "http://duka.example.co.ke",
        "ftp://duka.example.co.ke",
        "https://user:pw@duka.example.co.ke",
        "https://duka.example.co.ke/?x=1",
    ],
)
def test_woocommerce_needs_a_plain_https_address(tenant, settings, url) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    with pytest.raises(ValidationError):
        _woo(tenant, url)


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.5",
        "https://192.168.1.10:8443",
        "https://169.254.169.254",
        "https://[::1]",
        "https://127.0.0.1",
    ],
)
def test_woocommerce_on_a_private_address_is_refused(tenant, settings, url) -> None:
    settings.TULIA_LOCAL_FETCH_HOSTS = []
    with pytest.raises(SyncError, match="not a public address"):
        _woo(tenant, url)


def test_the_address_is_checked_at_every_connection_not_only_on_save(
    tenant, settings, woo, woo_shop, django_capture_on_commit_callbacks
) -> None:
    woo.seed(3, sized_every=0)
    settings.TULIA_LOCAL_FETCH_HOSTS = []  # what was allowed when saved is not any more
    with django_capture_on_commit_callbacks(execute=True):
        begin_import(tenant.id, woo_shop.pk)
    connection = get_connection(tenant.id, woo_shop.pk)
    assert connection.import_status == ImportStatus.FAILED
    assert woo.pages_asked == []  # not one product page was asked for
    assert "unsafe_address" in connection.last_error


@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/", "https://evil.example/"],
)
def test_a_redirect_to_another_host_is_refused(tenant, woo, target) -> None:
    woo.redirect_to = target
    with pytest.raises(SyncError, match="redirect to another host"):
        _woo(tenant, woo.base_url)


def test_a_redirect_within_the_same_host_is_followed(woo) -> None:
    woo.redirect_to = f"{woo.base_url}/wp-json/wc/v3/settings/general/woocommerce_currency"
    with pytest.raises(Exception, match="too many redirects"):
        request_public("GET", woo.base_url + "/wp-json/wc/v3/products", timeout=5)
    assert woo.requests == 4  # followed three times, each hop checked, then given up


def test_production_refuses_any_local_fetch_host() -> None:
    env = {
        **os.environ,
        "TULIA_PROFILE": "production",
        "DJANGO_SETTINGS_MODULE": "tulia.settings",
        "DJANGO_SECRET_KEY": "x" * 60,
        "TULIA_FIELD_KEYS": Fernet.generate_key().decode(),
        "TULIA_OPERATOR_KEY": "k" * 20,
        "TULIA_LOCAL_FETCH_HOSTS": "127.0.0.1",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "TULIA_LOCAL_FETCH_HOSTS must be empty when TULIA_PROFILE=production" in result.stderr
