"""Size limits for uploads; a deployment may override them in settings."""

from __future__ import annotations

from django.conf import settings

DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_PAGES = 500
# Extracted text beyond this is refused rather than truncated: half a document indexed
# would answer questions from the half and stay silent on the rest.
MAX_TEXT_CHARS = 2_000_000


def max_upload_bytes() -> int:
    return int(getattr(settings, "KB_MAX_UPLOAD_BYTES", DEFAULT_MAX_UPLOAD_BYTES))
