"""The initial import (resumable) and the reconcile (compare, repair, report).

Both walk the store page by page. Each page is fetched with no transaction open, then
applied in one transaction that also saves the cursor, so a worker killed anywhere
resumes at the first page not yet applied and never applies a page twice by halves.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.catalog_sync.apply import apply_delete, apply_product
from tulia.catalog_sync.connectors import client_for
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.indexing import reindex
from tulia.catalog_sync.models import (
    ExternalProduct,
    ImportStatus,
    ReconcileRun,
    StoreConnection,
)
from tulia.catalog_sync.upstream import Page

Fetch = Callable[[str], Page]
MAX_DRIFT_LINES = 500


def get_connection(tenant_id: UUID | str, connection_id: int) -> StoreConnection:
    with tenant_context(tenant_id) as tid:
        found = StoreConnection.objects.filter(tenant_id=tid, pk=connection_id).first()
    if found is None:
        raise NotFound("store connection not found")
    return found


def begin_import(tenant_id: UUID | str, connection_id: int, *, restart: bool = False) -> bool:
    """Mark an import as wanted; False if one is running (unless `restart`). A failed or
    restarted import keeps its cursor (the next run resumes); a finished one starts over.

    Each start takes a new run number: a run that finds its number superseded stops
    before its next page, so restarting a lost import can never leave two writing."""
    with tenant_context(tenant_id) as tid:
        connection = StoreConnection.objects.select_for_update().get(
            tenant_id=tid, pk=connection_id
        )
        if connection.import_status == ImportStatus.RUNNING and not restart:
            return False
        if connection.import_status not in (ImportStatus.FAILED, ImportStatus.RUNNING):
            connection.import_cursor, connection.imported_count = "", 0
        connection.import_status, connection.last_error = ImportStatus.RUNNING, ""
        connection.import_run += 1
        connection.import_progress_at = timezone.now()
        connection.save()
        run = connection.import_run
    from tulia.catalog_sync.tasks import import_catalog

    transaction.on_commit(lambda: import_catalog.delay(str(tenant_id), connection_id, run))
    return True


def run_import(
    tenant_id: UUID | str, connection_id: int, fetch: Fetch | None = None, run: int | None = None
) -> int:
    """Import from the saved cursor to the last page; returns the products imported.
    `run`: the run number this worker was started for (None: whichever is current)."""
    connection = get_connection(tenant_id, connection_id)
    if connection.import_status != ImportStatus.RUNNING:
        return connection.imported_count  # finished (or never asked for): nothing to do
    run = connection.import_run if run is None else run
    cursor = connection.import_cursor
    try:
        fetch = fetch or client_for(connection).products_page
        while True:
            next_cursor = _apply_import_page(tenant_id, connection_id, run, fetch(cursor))
            if not next_cursor:  # the last page, or another run took over
                return get_connection(tenant_id, connection_id).imported_count
            cursor = next_cursor
    except SyncError as exc:
        _record_failure(tenant_id, connection_id, run, exc)
        raise


def _apply_import_page(
    tenant_id: UUID | str, connection_id: int, run: int, page: Page
) -> str | None:
    """Apply one page and save the cursor after it; None if another run took over."""
    with tenant_context(tenant_id) as tid:
        connection = StoreConnection.objects.select_for_update().get(
            tenant_id=tid, pk=connection_id
        )
        if connection.import_run != run or connection.import_status != ImportStatus.RUNNING:
            return None
        ids = [apply_product(connection, p, exists_now=True).item_id for p in page.products]
        reindex(tid, [pk for pk in ids if pk])
        connection.import_cursor = page.next_cursor
        connection.imported_count += len(page.products)
        connection.import_progress_at = timezone.now()
        if not page.next_cursor:
            connection.import_status = ImportStatus.DONE
            connection.import_finished_at = timezone.now()
        connection.save()
    return page.next_cursor


def _record_failure(tenant_id: UUID | str, connection_id: int, run: int, exc: SyncError) -> None:
    with tenant_context(tenant_id) as tid:
        StoreConnection.objects.filter(tenant_id=tid, pk=connection_id, import_run=run).update(
            import_status=ImportStatus.FAILED, last_error=str(exc)[:400]
        )


def reconcile(
    tenant_id: UUID | str, connection_id: int, fetch: Fetch | None = None
) -> ReconcileRun:
    """Walk the whole store, repair every difference, withdraw what vanished, report it."""
    connection = get_connection(tenant_id, connection_id)
    with tenant_context(tenant_id) as tid:
        run = ReconcileRun.objects.create(
            tenant_id=tid, connection=connection, started_at=timezone.now()
        )
    # Only what we knew before the walk can be found missing: a product a webhook
    # creates meanwhile was not there to be seen.
    known = _known_products(tenant_id, connection_id)
    seen: set[str] = set()
    cursor = ""
    try:
        fetch = fetch or client_for(connection).products_page
        while True:
            page = fetch(cursor)
            _reconcile_page(tenant_id, connection_id, run, page, seen)
            cursor = page.next_cursor
            if not cursor:
                break
        _withdraw_missing(tenant_id, connection_id, run, known - seen)
    except SyncError as exc:
        run.error = str(exc)[:400]
    run.finished_at = timezone.now()
    with tenant_context(tenant_id):
        run.save()
    return run


def _note(run: ReconcileRun, lines: list[str]) -> None:
    room = MAX_DRIFT_LINES - len(run.drift)
    run.drift.extend(lines[: max(room, 0)])


def _reconcile_page(
    tenant_id: UUID | str, connection_id: int, run: ReconcileRun, page: Page, seen: set[str]
) -> None:
    with tenant_context(tenant_id) as tid:
        connection = StoreConnection.objects.get(tenant_id=tid, pk=connection_id)
        touched = []
        for product in page.products:
            seen.add(product.external_id)
            applied = apply_product(connection, product, exists_now=True)
            run.checked += 1
            if applied.created:
                _note(run, [f"{connection.prefix}{product.external_id} was missing: created"])
            if applied.created or applied.changes:
                run.repaired += 1
                touched.append(applied.item_id)
            _note(run, applied.changes + applied.kept)
        reindex(tid, [pk for pk in touched if pk])
        run.save()


def _known_products(tenant_id: UUID | str, connection_id: int) -> set[str]:
    with tenant_context(tenant_id) as tid:
        return set(
            ExternalProduct.objects.filter(
                tenant_id=tid, connection_id=connection_id, deleted_upstream=False
            ).values_list("external_id", flat=True)
        )


def _withdraw_missing(
    tenant_id: UUID | str, connection_id: int, run: ReconcileRun, missing: set[str]
) -> None:
    with tenant_context(tenant_id) as tid:
        connection = StoreConnection.objects.get(tenant_id=tid, pk=connection_id)
        for external_id in sorted(missing):
            applied = apply_delete(connection, external_id, run.started_at, seen_missing=True)
            if applied.stale:
                continue
            run.repaired += 1
            _note(run, applied.changes or [f"{connection.prefix}{external_id} gone: withdrawn"])
        run.save()
