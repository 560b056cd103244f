"""Documents through the tenant API: upload queues ingestion; strangers see nothing."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from kb.ingest import ingest_document
from kb.models import Chunk, Document
from tenants.context import tenant_context
from tulia.api.keys import issue_key

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.kb.api_urls")]
URL = "/api/v1/kb/documents/"


def _client(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'test').plaintext}")
    return client


def _upload(client: APIClient, name: str, data: bytes):
    form = {"title": "Returns", "kind": "policy", "file": SimpleUploadedFile(name, data)}
    return client.post(URL, form, format="multipart")


def test_upload_is_accepted_and_queued(tenant, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        response = _upload(_client(tenant), "returns.md", b"# Returns\n\nSeven days.\n")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    assert len(callbacks) == 1


def test_wrong_type_is_rejected(tenant) -> None:
    response = _upload(_client(tenant), "setup.exe", b"MZ")
    assert response.status_code == 400
    with tenant_context(tenant.id):
        assert not Document.objects.exists()


def test_stranger_cannot_see_replace_or_delete(tenant, stranger) -> None:
    created = _upload(_client(tenant), "returns.md", b"# Returns\n\nSeven days.\n").json()
    ingest_document(tenant.id, created["id"], created["content_hash"])
    theirs = _client(stranger)
    assert theirs.get(URL).json() == []
    assert theirs.get(f"{URL}{created['id']}/").status_code == 404
    assert theirs.delete(f"{URL}{created['id']}/").status_code == 404
    with tenant_context(tenant.id):
        assert Chunk.objects.filter(document_id=created["id"]).count() == 1


def test_owner_can_replace_and_delete(tenant) -> None:
    client = _client(tenant)
    created = _upload(client, "returns.md", b"# Returns\n\nSeven days.\n").json()
    form = {"file": SimpleUploadedFile("returns.md", b"# Returns\n\nTen days.\n")}
    replaced = client.put(f"{URL}{created['id']}/file/", form, format="multipart")
    assert replaced.status_code == 202
    assert replaced.json()["content_hash"] != created["content_hash"]
    assert client.delete(f"{URL}{created['id']}/").status_code == 204
    with tenant_context(tenant.id):
        assert not Document.objects.filter(pk=created["id"]).exists()
