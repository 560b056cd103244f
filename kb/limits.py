"""Size limits for uploads; a deployment may override them in settings."""

from __future__ import annotations

from django.conf import settings

DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_PAGES = 500
# Extracted text beyond this is refused rather than truncated: half a document indexed
# would answer questions from the half and stay silent on the rest.
MAX_TEXT_CHARS = 2_000_000

# Decompression bombs: a small upload must not unpack into gigabytes. A DOCX is a zip; its
# central directory declares each member's size, and zipfile stops reading a member at
# that size, so summing the declarations bounds what extraction can unpack. Real shop
# documents stay far below: a 300-page text DOCX unpacks to a few MB of XML.
MAX_DOCX_MEMBERS = 1_000
MAX_DOCX_UNPACKED_BYTES = 100 * 1024 * 1024  # pictures included
MAX_DOCX_XML_BYTES = 25 * 1024 * 1024  # what python-docx parses into memory
# PDF: the cross-reference table's declared object count bounds what pypdf may resolve.
MAX_PDF_OBJECTS = 200_000


def max_upload_bytes() -> int:
    return int(getattr(settings, "KB_MAX_UPLOAD_BYTES", DEFAULT_MAX_UPLOAD_BYTES))
