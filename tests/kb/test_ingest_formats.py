"""Each supported format is extracted, chunked under its headings and made searchable."""

from __future__ import annotations

import pytest

from kb.models import Chunk, Document
from tenants.context import tenant_context
from tests.kb.files import docx_bytes, pdf_bytes

pytestmark = pytest.mark.django_db


def _sections(tenant, document: Document) -> dict[str, str]:
    with tenant_context(tenant.id):
        rows = Chunk.objects.filter(document=document).order_by("position")
        return {row.section_path: row.text for row in rows}


def test_pdf_pages_become_sections(tenant, upload) -> None:
    data = pdf_bytes(
        [
            ["Return window", "", "Unworn pairs come back within 7 days of delivery."],
            ["Refunds", "", "Money goes back to the paying M-Pesa number in 3 days."],
        ]
    )
    document = upload(tenant, "returns.pdf", data)
    assert document.status == Document.Status.READY, document.status_reason
    assert document.pages == 2
    sections = _sections(tenant, document)
    assert "7 days of delivery" in sections["Return window"]
    assert "M-Pesa number in 3 days" in sections["Refunds"]


def test_docx_headings_give_the_section_path(tenant, upload) -> None:
    data = docx_bytes(
        [
            ("h1", "Delivery"),
            ("h2", "Fees"),
            ("", "CBD costs KES 200; Westlands costs KES 250."),
            ("h2", "Times"),
            ("", "Orders paid before 2 pm arrive the same day."),
        ]
    )
    document = upload(tenant, "delivery.docx", data)
    assert document.status == Document.Status.READY, document.status_reason
    sections = _sections(tenant, document)
    assert sections["Delivery > Fees"] == "CBD costs KES 200; Westlands costs KES 250."
    assert "same day" in sections["Delivery > Times"]


def test_csv_faq_keeps_quoted_commas_inside_the_answer(tenant, upload) -> None:
    data = (
        b"question,answer\n"
        b'"Do you deliver to Rongai, Kitengela or Karen?","Yes, all three, for KES 450."\n'
        b"Can I pay by card?,Yes through PesaPal\n"
    )
    document = upload(tenant, "faq.csv", data, kind="faq")
    assert document.status == Document.Status.READY, document.status_reason
    sections = _sections(tenant, document)
    assert sections["Do you deliver to Rongai, Kitengela or Karen?"] == (
        "Yes, all three, for KES 450."
    )
    assert sections["Can I pay by card?"] == "Yes through PesaPal"


def test_markdown_nested_headings_and_tables(tenant, upload) -> None:
    data = (
        b"# Size guide\n\n## Nike\n\n### Air Force 1\n\nRuns half a size big.\n\n"
        b"## Chart\n\n| cm | EU |\n|---|---|\n| 27 | 43 |\n"
    )
    document = upload(tenant, "sizes.md", data)
    sections = _sections(tenant, document)
    assert sections["Size guide > Nike > Air Force 1"] == "Runs half a size big."
    assert sections["Size guide > Chart"] == "cm — EU\n27 — 43"


def test_plain_text_is_indexed(tenant, upload) -> None:
    document = upload(tenant, "hours.txt", b"Open Monday to Friday, 8 am to 7 pm.\n")
    assert document.status == Document.Status.READY
    assert document.chunk_count == 1
