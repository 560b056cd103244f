"""Knowledge-base fixtures: uploaded files land in a temporary media folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kb.documents import submit_document
from kb.ingest import ingest_document
from kb.models import Document
from tenants.context import tenant_context
from tenants.models import Tenant


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def upload() -> Callable[..., Document]:
    """Submit a file and run its ingestion task body, as the worker would."""

    def run(
        tenant: Tenant, filename: str, data: bytes, *, title: str = "", kind: str = "policy"
    ) -> Document:
        document = submit_document(
            tenant.id, title=title or filename, kind=kind, filename=filename, data=data
        )
        ingest_document(tenant.id, document.pk, document.content_hash)
        return reload(tenant, document.pk)

    return run


def reload(tenant: Tenant, document_id: int) -> Document:
    with tenant_context(tenant.id):
        return Document.objects.get(pk=document_id)
