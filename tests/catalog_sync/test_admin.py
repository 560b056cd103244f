"""Connecting from Django admin, as a shop owner, end to end against the emulators."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.catalog_sync.connectors import client_for
from tulia.catalog_sync.models import ImportStatus, StoreConnection
from tulia.catalog_sync.sync import run_import
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


CHANGELIST = "/admin/catalog_sync/storeconnection/"


def _lost_import(tenant, shopify, connection) -> None:
    """An import whose worker died after page 1: still "running", nobody running it."""
    shopify.seed(25, sized_every=0)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=connection.pk).update(import_status="running")
    pages = client_for(connection).products_page
    fetched: list[str] = []

    def killed_on_page_two(cursor: str):
        fetched.append(cursor)
        if len(fetched) == 2:
            raise RuntimeError("the worker was killed")
        return pages(cursor)

    with pytest.raises(RuntimeError):
        run_import(tenant.id, connection.pk, fetch=killed_on_page_two)


def test_an_owner_restarts_a_lost_import_and_it_resumes_audited(
    tenant, shopify, shopify_shop, django_capture_on_commit_callbacks
) -> None:
    _lost_import(tenant, shopify, shopify_shop)
    shopify.cursors_asked.clear()
    client = _signed_in(tenant, "owner")
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            CHANGELIST, {"action": "restart_import", "_selected_action": [shopify_shop.pk]}
        )
    assert answer.status_code == 302
    with tenant_context(tenant.id):
        connection = StoreConnection.objects.get(pk=shopify_shop.pk)
        assert CatalogItem.objects.count() == 25
    assert (connection.import_status, connection.imported_count) == (ImportStatus.DONE, 25)
    assert None not in shopify.cursors_asked  # resumed after page 1, not from the start
    entry = LogEntry.objects.get(object_id=str(shopify_shop.pk), user__username="owner_s")
    assert "import restarted" in entry.get_change_message()


def test_an_agent_cannot_restart_an_import(tenant, shopify, shopify_shop) -> None:
    _lost_import(tenant, shopify, shopify_shop)
    client = _signed_in(tenant, "agent")
    client.post(CHANGELIST, {"action": "restart_import", "_selected_action": [shopify_shop.pk]})
    with tenant_context(tenant.id):
        assert StoreConnection.objects.get(pk=shopify_shop.pk).import_run == 0
    assert not LogEntry.objects.exists()


def test_a_superseded_run_stops_before_its_next_page(tenant, shopify, shopify_shop) -> None:
    _lost_import(tenant, shopify, shopify_shop)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=shopify_shop.pk).update(import_run=7)
    assert run_import(tenant.id, shopify_shop.pk, run=0) == 10  # only page 1 was applied
