"""Connecting from Django admin, as a shop owner, end to end against the emulators."""

from __future__ import annotations

import pytest
from django.test import Client

from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.catalog_sync.models import ImportStatus, StoreConnection
from tulia.commerce.models import CatalogItem

from .conftest import APP_SECRET, SHOP_TOKEN, host_of

pytestmark = pytest.mark.django_db
PASSWORD = "x-Sync-Pass-42"
ADD = "/admin/catalog_sync/storeconnection/add/"


def _signed_in(tenant, role: str) -> Client:
    add_staff_member(tenant.id, username=f"{role}_s", password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=f"{role}_s", password=PASSWORD)
    return client


def _form(tenant, shopify, token: str = SHOP_TOKEN) -> dict[str, str]:
    return {
        "tenant": str(tenant.id),
        "platform": "shopify",
        "shop_domain": host_of(shopify),
        "store_url": "",
        "api_version": "2025-07",
        "access_token": token,
        "consumer_key": "",
        "consumer_secret": "",
        "webhook_secret": APP_SECRET,
        "stock_owner": "platform",
        "is_active": "on",
    }


def test_an_owner_connects_shopify_and_the_import_runs(
    tenant, stranger, shopify, django_capture_on_commit_callbacks
) -> None:
    shopify.seed(12, sized_every=0)
    client = _signed_in(tenant, "owner")
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(ADD, _form(tenant, shopify))
    assert answer.status_code == 302, answer.content[:2000]
    with tenant_context(tenant.id):
        connection = StoreConnection.objects.get()
        assert CatalogItem.objects.count() == 12
    assert connection.import_status == ImportStatus.DONE
    assert len(shopify.subscriptions) == 4
    with tenant_context(stranger.id):
        assert not CatalogItem.objects.exists()
        assert not StoreConnection.objects.exists()


def test_wrong_credentials_are_shown_on_the_form_and_nothing_is_saved(tenant, shopify) -> None:
    client = _signed_in(tenant, "owner")
    answer = client.post(ADD, _form(tenant, shopify, token="shpat_typo"))
    assert answer.status_code == 200
    assert b"did not accept the connection" in answer.content
    with tenant_context(tenant.id):
        assert not StoreConnection.objects.exists()


def test_secrets_are_never_rendered_back(tenant, shopify, shopify_shop) -> None:
    client = _signed_in(tenant, "owner")
    page = client.get(f"/admin/catalog_sync/storeconnection/{shopify_shop.pk}/change/")
    assert page.status_code == 200
    assert SHOP_TOKEN.encode() not in page.content
    assert APP_SECRET.encode() not in page.content


def test_an_agent_cannot_connect_a_store(tenant, shopify) -> None:
    client = _signed_in(tenant, "agent")
    assert client.post(ADD, _form(tenant, shopify)).status_code == 403
