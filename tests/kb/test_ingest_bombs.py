"""Decompression bombs fail the document with a reason, and ingestion carries on.

Each bomb is built here, in memory: a few hundred KB that would unpack to far more than
the caps in kb/limits.py. Before the caps, the DOCX one took seconds and hundreds of MB.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from kb import limits
from kb.extract import ExtractionError, extract
from kb.models import Document
from tests.kb.files import docx_bytes, pdf_bytes

pytestmark = pytest.mark.django_db


def _repack(docx: bytes, *, pad_document: int = 0, extra_members: int = 0) -> bytes:
    """The same DOCX with its body XML padded by blanks and/or many tiny members added."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(docx)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst,
    ):
        for member in src.infolist():
            body = src.read(member.filename)
            if member.filename == "word/document.xml" and pad_document:
                head, sep, tail = body.partition(b"<w:body>")
                body = head + sep + b" " * pad_document + tail
            dst.writestr(member.filename, body)
        for n in range(extra_members):
            dst.writestr(f"customXml/item{n}.bin", b"")
    return out.getvalue()


def _shop_docx() -> bytes:
    return docx_bytes([("h1", "Returns"), ("", "Bring it back within 7 days.")])


def test_a_docx_that_unpacks_past_the_cap_fails_with_the_reason(tenant, upload) -> None:
    bomb = _repack(_shop_docx(), pad_document=limits.MAX_DOCX_XML_BYTES + 1024 * 1024)
    assert len(bomb) < 1024 * 1024  # small on the wire: that is the attack
    document = upload(tenant, "bomb.docx", bomb)
    assert document.status == Document.Status.FAILED
    assert "unpacks to" in document.status_reason
    assert document.chunk_count == 0


def test_a_docx_with_too_many_parts_fails_with_the_reason(tenant, upload) -> None:
    bomb = _repack(_shop_docx(), extra_members=limits.MAX_DOCX_MEMBERS + 1)
    document = upload(tenant, "parts.docx", bomb)
    assert document.status == Document.Status.FAILED
    assert "parts" in document.status_reason


def test_ingestion_goes_on_after_a_bomb(tenant, upload) -> None:
    upload(tenant, "bomb.docx", _repack(_shop_docx(), pad_document=limits.MAX_DOCX_XML_BYTES * 2))
    document = upload(tenant, "returns.docx", _shop_docx())
    assert document.status == Document.Status.READY


def test_a_padded_docx_under_the_cap_is_still_read() -> None:
    extracted = extract("ok.docx", _repack(_shop_docx(), pad_document=1024 * 1024))
    assert "Bring it back" in extracted.text


def test_a_pdf_declaring_millions_of_objects_is_refused() -> None:
    pdf = pdf_bytes([["Hours", "", "Open 9 to 5."]])
    head, _, rest = pdf.rpartition(b"/Size ")
    size_end = rest.index(b" ")
    bomb = head + b"/Size " + str(limits.MAX_PDF_OBJECTS + 1).encode() + rest[size_end:]
    with pytest.raises(ExtractionError, match="objects; the limit"):
        extract("bomb.pdf", bomb)
