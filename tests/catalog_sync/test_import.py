"""The initial import from both emulators: pages, throttling, resuming after a crash."""

from __future__ import annotations

import re

import pytest

from payments.emulators.server import Reply
from tenants.context import tenant_context
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import ImportStatus, StoreConnection
from tulia.catalog_sync.sync import begin_import, get_connection, run_import
from tulia.commerce.models import CatalogItem, Variant

pytestmark = pytest.mark.django_db


def _counts(tenant) -> tuple[int, int]:
    with tenant_context(tenant.id):
        return CatalogItem.objects.count(), Variant.objects.count()


def test_shopify_import_walks_every_page_and_waits_out_the_throttle(
    tenant, stranger, shopify, shopify_shop, django_capture_on_commit_callbacks
) -> None:
    shopify.seed(55, sized_every=10)  # 3 pages; 6 products in three sizes
    shopify.force_throttle = 2  # another app drained the shop's bucket
    with django_capture_on_commit_callbacks(execute=True):
        assert begin_import(tenant.id, shopify_shop.pk)
    assert _counts(tenant) == (55, 18)
    assert shopify.throttled >= 1
    connection = get_connection(tenant.id, shopify_shop.pk)
    assert (connection.import_status, connection.imported_count) == (ImportStatus.DONE, 55)
    assert _counts(stranger) == (0, 0)


def test_woocommerce_import_pages_and_waits_out_429(
    tenant, woo, woo_shop, django_capture_on_commit_callbacks
) -> None:
    woo.seed(230, sized_every=50)
    woo.limit_every = 4
    with django_capture_on_commit_callbacks(execute=True):
        begin_import(tenant.id, woo_shop.pk)
    assert _counts(tenant) == (230, 15)
    assert woo.limited >= 1
    assert sorted(set(woo.pages_asked)) == [1, 2, 3]


def test_an_import_killed_mid_way_resumes_from_the_saved_cursor(tenant, woo, woo_shop) -> None:
    woo.seed(250, sized_every=0)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=woo_shop.pk).update(import_status=ImportStatus.RUNNING)
    original = woo._list
    crashed: list[bool] = []

    def crash_on_page_three(request):
        if request.query.get("page") == "3" and not crashed:
            crashed.append(True)
            return Reply(503, {"code": "down", "message": "the host fell over"})
        return original(request)

    woo._routes.insert(0, ("GET", re.compile("^/wp-json/wc/v3/products$"), crash_on_page_three))
    with pytest.raises(SyncError):
        run_import(tenant.id, woo_shop.pk)
    failed = get_connection(tenant.id, woo_shop.pk)
    assert (failed.import_status, failed.import_cursor, failed.imported_count) == (
        ImportStatus.FAILED,
        "3",
        200,
    )
    woo.pages_asked.clear()
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=woo_shop.pk).update(import_status=ImportStatus.RUNNING)
    assert run_import(tenant.id, woo_shop.pk) == 250
    assert woo.pages_asked == [3]  # pages 1 and 2 were not fetched again
    assert _counts(tenant) == (250, 0)


def test_a_failed_import_resumes_when_started_again(
    tenant, shopify, shopify_shop, django_capture_on_commit_callbacks
) -> None:
    shopify.seed(45, sized_every=0)
    with tenant_context(tenant.id):
        StoreConnection.objects.filter(pk=shopify_shop.pk).update(
            import_status=ImportStatus.FAILED, import_cursor="", imported_count=0
        )
    first_page = shopify.cursors_asked[:]
    with django_capture_on_commit_callbacks(execute=True):
        begin_import(tenant.id, shopify_shop.pk)
    assert first_page == []
    assert shopify.cursors_asked[0] is None
    assert _counts(tenant) == (45, 0)


def test_importing_twice_changes_nothing(
    tenant, woo, woo_shop, django_capture_on_commit_callbacks
) -> None:
    woo.seed(30, sized_every=5)
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            begin_import(tenant.id, woo_shop.pk)
    assert _counts(tenant) == (30, 18)
