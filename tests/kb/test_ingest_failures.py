"""Bad files fail with a reason a shop can act on, and leave no chunks behind."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfWriter

from kb.models import Chunk, Document
from tenants.context import tenant_context
from tests.kb.files import pdf_bytes

pytestmark = pytest.mark.django_db


def _chunks(tenant, document: Document) -> int:
    with tenant_context(tenant.id):
        return Chunk.objects.filter(document=document).count()


def _encrypted_pdf() -> bytes:
    writer = PdfWriter()
    writer.append(io.BytesIO(pdf_bytes([["Secret", "", "Locked text."]])))
    writer.encrypt(user_password="open-sesame", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("filename", "data", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog", "corrupt"),
        ("fake.pdf", b"this is not a pdf at all", "not a PDF"),
        ("empty.md", b"", "empty"),
        ("blank.txt", b"   \n\n  ", "no text"),
        ("virus.exe", b"MZ\x90\x00binary", "unsupported file type .exe"),
        ("broken.docx", b"PK\x03\x04not really a zip", "DOCX"),
        ("faq.csv", b"question,answer\nOnly a question,\n", "needs a question and an answer"),
    ],
)
def test_bad_file_fails_cleanly(tenant, upload, filename, data, reason) -> None:
    document = upload(tenant, filename, data)
    assert document.status == Document.Status.FAILED
    assert reason in document.status_reason
    assert _chunks(tenant, document) == 0
    assert document.chunk_count == 0


def test_encrypted_pdf_is_refused_with_the_reason(tenant, upload) -> None:
    document = upload(tenant, "locked.pdf", _encrypted_pdf())
    assert document.status == Document.Status.FAILED
    assert "password-protected" in document.status_reason
    assert _chunks(tenant, document) == 0


def test_oversized_file_is_refused(tenant, upload, settings) -> None:
    settings.KB_MAX_UPLOAD_BYTES = 1024
    document = upload(tenant, "big.md", b"# Big\n\n" + b"word " * 400)
    assert document.status == Document.Status.FAILED
    assert "limit" in document.status_reason
    assert _chunks(tenant, document) == 0
