"""Admin: owners upload documents (queued for ingestion) and read their own gaps only."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from kb.gaps import record_gap
from kb.models import Document
from tenants.context import tenant_context
from tenants.services import add_staff_member

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


@pytest.fixture
def owner(tenant) -> Client:
    add_staff_member(tenant.id, username="owner_kb", password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username="owner_kb", password=PASSWORD)
    return client


def _add(client: Client, name: str, data: bytes):
    upload = SimpleUploadedFile(name, data)
    form = {"title": "Returns", "kind": "policy", "language": "en", "file": upload}
    return client.post(reverse("admin:kb_document_add"), form, follow=True)


def test_upload_stores_the_file_and_queues_ingestion(
    owner, tenant, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        response = _add(owner, "returns.md", b"# Returns\n\nSeven days.\n")
    assert response.status_code == 200
    with tenant_context(tenant.id):
        document = Document.objects.get()
    assert document.status == Document.Status.QUEUED
    assert len(document.content_hash) == 64
    assert callbacks  # the ingestion task is sent only after the upload commits


def test_wrong_file_type_is_rejected_in_the_form(owner, tenant) -> None:
    response = _add(owner, "setup.exe", b"MZ")
    assert "Unsupported file type .exe" in response.content.decode()
    with tenant_context(tenant.id):
        assert not Document.objects.exists()


def test_gaps_list_shows_counts_and_only_own_questions(owner, tenant, stranger) -> None:
    record_gap(tenant.id, "Do you sell gift vouchers?")
    record_gap(tenant.id, "do you sell gift vouchers")
    record_gap(stranger.id, "Mnauza mbolea?")
    page = owner.get(reverse("admin:kb_knowledgegap_changelist")).content.decode()
    assert "gift vouchers" in page
    assert ">2<" in page
    assert "mbolea" not in page
