"""Turn an uploaded file into Markdown-shaped text: headings as `#` lines, body as paragraphs.

One extractor per format, each with a well-kept library where the format needs one.
Every failure a shop can cause (corrupt, encrypted, empty, oversized, wrong type) is an
`ExtractionError` whose message is shown to the shop as the reason.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from kb import limits
from tulia.errors import DomainError

if TYPE_CHECKING:
    from pypdf import PdfReader

# pypdf and python-docx are imported by the extractors that use them, not here: this
# module is imported by the admin and the worker's task modules, and the two libraries
# (≈ 17 MB) would otherwise sit in every web and worker process that never reads a file.


class ExtractionError(DomainError):
    """The file cannot be indexed; the message says why in words a shop understands."""

    code = "unreadable_document"


@dataclass(frozen=True)
class Extracted:
    text: str  # Markdown-shaped: "# Heading" lines and paragraphs
    pages: int


SUPPORTED_SUFFIXES = (".pdf", ".docx", ".txt", ".md", ".markdown", ".csv")


def extract(filename: str, data: bytes) -> Extracted:
    suffix = PurePath(filename).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ExtractionError(
            f"unsupported file type {suffix or '(none)'}; use PDF, DOCX, TXT, Markdown or CSV"
        )
    _check_size(data)
    extracted = _EXTRACTORS[suffix](data)
    if not extracted.text.strip():
        raise ExtractionError("no text found in the file (a scanned image PDF has no text layer)")
    return extracted


def _check_size(data: bytes) -> None:
    if not data:
        raise ExtractionError("the file is empty")
    if len(data) > limits.max_upload_bytes():
        mib = limits.max_upload_bytes() / (1024 * 1024)
        raise ExtractionError(
            f"the file is {len(data) / (1024 * 1024):.1f} MB; the limit is {mib:g} MB"
        )


def _decode_text(data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise ExtractionError("the file looks binary, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Files saved by older Windows editors; cp1252 covers the characters Kenyan shops use.
        return data.decode("cp1252", errors="replace")


# --- PDF ---------------------------------------------------------------------------------
def _pdf(data: bytes) -> Extracted:
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError("not a PDF file (the PDF header is missing)")
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    try:
        reader = PdfReader(io.BytesIO(data))
        _check_pdf_objects(reader)
        _unlock(reader)
        if len(reader.pages) > limits.MAX_PAGES:
            raise ExtractionError(
                f"the PDF has {len(reader.pages)} pages; the limit is {limits.MAX_PAGES}"
            )
        pages = _pdf_page_texts(reader)
    except ExtractionError:
        raise
    except LimitReachedError as exc:  # pypdf's own decompression and nesting caps
        raise ExtractionError(
            "the PDF unpacks to more than we can safely read (a decompression bomb?);"
            " export it again or split it"
        ) from exc
    except Exception as exc:  # pypdf raises many types on damaged files; all mean "corrupt"
        raise ExtractionError(f"the PDF is corrupt or unreadable ({type(exc).__name__})") from exc
    return Extracted(text=plain_text_to_markdown("\n\n".join(pages)), pages=len(pages))


def _check_pdf_objects(reader: PdfReader) -> None:
    declared = int(reader.trailer.get("/Size", 0) or 0)
    if declared > limits.MAX_PDF_OBJECTS:
        raise ExtractionError(
            f"the PDF has {declared} objects; the limit is {limits.MAX_PDF_OBJECTS}"
        )


def _pdf_page_texts(reader: PdfReader) -> list[str]:
    texts: list[str] = []
    total = 0
    for page in reader.pages:
        texts.append(page.extract_text() or "")
        total += len(texts[-1])
        if total > limits.MAX_TEXT_CHARS:  # stop reading now, not after the last page
            raise ExtractionError("the document has too much text; split it into smaller files")
    return texts


def _unlock(reader: PdfReader) -> None:
    if not reader.is_encrypted:
        return
    # Many PDFs carry only an owner password and open with an empty user password.
    try:
        unlocked = reader.decrypt("")
    except Exception as exc:  # pypdf raises several types (missing crypto backend too)
        raise ExtractionError("the PDF is password-protected; upload an unlocked copy") from exc
    if not unlocked:
        raise ExtractionError("the PDF is password-protected; upload an unlocked copy")


# --- DOCX --------------------------------------------------------------------------------
def _docx(data: bytes) -> Extracted:
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ExtractionError("not a DOCX file (a DOCX is a zip package), or it is corrupt")
    _check_docx_package(data)
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx surfaces zip, XML and package errors alike
        raise ExtractionError(f"the DOCX is corrupt or unreadable ({type(exc).__name__})") from exc
    lines: list[str] = []
    for paragraph in document.paragraphs:
        lines.append(_docx_line(paragraph.style.name if paragraph.style else "", paragraph.text))
    for table in document.tables:
        for row in table.rows:
            lines.append(" | ".join(cell.text.strip() for cell in row.cells))
    return Extracted(text="\n\n".join(line for line in lines if line.strip()), pages=1)


def _check_docx_package(data: bytes) -> None:
    """Refuse a package that would unpack too far, before python-docx opens any part."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, ValueError) as exc:
        raise ExtractionError("the DOCX is corrupt or unreadable (BadZipFile)") from exc
    if len(members) > limits.MAX_DOCX_MEMBERS:
        raise ExtractionError(
            f"the DOCX holds {len(members)} parts; the limit is {limits.MAX_DOCX_MEMBERS}"
        )
    unpacked = sum(member.file_size for member in members)
    xml = sum(m.file_size for m in members if m.filename.endswith((".xml", ".rels")))
    if unpacked > limits.MAX_DOCX_UNPACKED_BYTES or xml > limits.MAX_DOCX_XML_BYTES:
        raise ExtractionError(
            f"the DOCX unpacks to {unpacked / (1024 * 1024):.0f} MB"
            f" ({xml / (1024 * 1024):.0f} MB of text markup); the limits are"
            f" {limits.MAX_DOCX_UNPACKED_BYTES // (1024 * 1024)} MB and"
            f" {limits.MAX_DOCX_XML_BYTES // (1024 * 1024)} MB"
        )


def _docx_line(style: str, text: str) -> str:
    if style == "Title":
        return f"# {text}"
    match = re.fullmatch(r"Heading (\d)", style)
    return f"{'#' * int(match.group(1))} {text}" if match else text


# --- text, Markdown, CSV FAQ -------------------------------------------------------------
def _markdown(data: bytes) -> Extracted:
    return Extracted(text=_decode_text(data), pages=1)


def _plain(data: bytes) -> Extracted:
    return Extracted(text=plain_text_to_markdown(_decode_text(data)), pages=1)


def _csv_faq(data: bytes) -> Extracted:
    try:
        rows = list(csv.reader(io.StringIO(_decode_text(data), newline="")))
    except csv.Error as exc:
        raise ExtractionError(f"the CSV file is malformed ({exc})") from exc
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if rows and [c.strip().lower() for c in rows[0][:2]] == ["question", "answer"]:
        rows = rows[1:]
    entries = []
    for number, row in enumerate(rows, start=1):
        if len(row) < 2 or not row[0].strip() or not row[1].strip():
            raise ExtractionError(f"FAQ row {number} needs a question and an answer")
        entries.append(f"## {row[0].strip()}\n\n{row[1].strip()}")
    return Extracted(text="\n\n".join(entries), pages=1)


HEADING_LIKE = re.compile(r"^[A-Z0-9][^.!?:;,]{1,70}$")


def plain_text_to_markdown(text: str) -> str:
    """Mark short title-like lines that start a block as headings, so PDF/TXT keep sections.

    PDF text has no styles; a line is taken as a heading when it is short, has no
    sentence punctuation, follows a blank line or a finished sentence, and has text after it.
    """
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        previous = lines[i - 1].strip() if i else ""
        starts_block = not previous or previous.endswith((".", "!", "?", ":"))
        has_body = any(rest.strip() for rest in lines[i + 1 : i + 3])
        if _title_like(stripped) and starts_block and has_body:
            out.extend(["", f"## {stripped}", ""])
        else:
            out.append(line)
    return "\n".join(out)


def _title_like(line: str) -> bool:
    return bool(HEADING_LIKE.match(line)) and len(line.split()) <= 8 and not line.startswith("#")


_EXTRACTORS: dict[str, Callable[[bytes], Extracted]] = {
    ".pdf": _pdf,
    ".docx": _docx,
    ".txt": _plain,
    ".md": _markdown,
    ".markdown": _markdown,
    ".csv": _csv_faq,
}
