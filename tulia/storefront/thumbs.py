"""Small WebP copies of item photos, made once and kept on disk.

An item's `image_url` points wherever the shop keeps its photos, often a multi-megabyte
camera JPEG. A phone on a slow line should get a few kilobytes: the first request for a
size fetches the original, crops or shrinks it and writes the WebP under MEDIA_ROOT;
every later request is a file read. The file name carries a digest of the source URL,
so a changed photo makes a new file (and a new address, cached by browsers for long).
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import UUID

import httpx
from django.conf import settings
from PIL import Image, ImageOps

if TYPE_CHECKING:
    from tulia.commerce.models import CatalogItem

# name: (CSS width x density for cheap phones, square crop?, WebP quality)
SIZES = {"s": (144, True, 50), "l": (480, False, 60)}
FETCH_TIMEOUT = 5.0
MAX_SOURCE_BYTES = 8 * 1024 * 1024
RETRY_FAILED_AFTER = 3600  # seconds
# Refuse decompression bombs before decoding: a 40-megapixel photo is plenty.
Image.MAX_IMAGE_PIXELS = 40_000_000


class NoThumbnail(Exception):
    """No photo, or the photo could not be fetched or read."""


def source_digest(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:12]


def _path(tenant_id: UUID | str, item: CatalogItem, size: str) -> Path:
    name = f"{item.pk}-{size}-{source_digest(item.image_url)}.webp"
    return Path(settings.MEDIA_ROOT) / "storefront" / str(tenant_id) / name


def _fetch(url: str) -> bytes:
    if not url.startswith(("http://", "https://")):
        raise NoThumbnail("not an http(s) address")
    try:
        with httpx.stream("GET", url, timeout=FETCH_TIMEOUT, follow_redirects=True) as answer:
            answer.raise_for_status()
            body = bytearray()
            for part in answer.iter_bytes():
                body.extend(part)
                if len(body) > MAX_SOURCE_BYTES:
                    raise NoThumbnail("photo too large")
            return bytes(body)
    except httpx.HTTPError as exc:
        raise NoThumbnail(str(exc)) from exc


def render(source: bytes, size: str) -> bytes:
    width, square, quality = SIZES[size]
    try:
        with Image.open(io.BytesIO(source)) as opened:
            opened.draft("RGB", (width * 2, width * 2))  # JPEG decodes at a lower scale
            picture = ImageOps.exif_transpose(opened).convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise NoThumbnail(f"unreadable photo: {exc}") from exc
    if square:
        picture = ImageOps.fit(picture, (width, width), Image.Resampling.LANCZOS)
    else:
        picture.thumbnail((width, width * 2), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    picture.save(out, "WEBP", quality=quality, method=4)
    return out.getvalue()


def thumbnail(tenant_id: UUID | str, item: CatalogItem, size: str) -> Path:
    """The cached file for the item's photo at `size`, made now if missing."""
    if size not in SIZES or not item.image_url:
        raise NoThumbnail("no photo")
    path = _path(tenant_id, item, size)
    if path.exists():
        return path
    failed = path.with_suffix(".failed")
    if failed.exists() and time.time() - failed.stat().st_mtime < RETRY_FAILED_AFTER:
        raise NoThumbnail("the photo failed recently")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = render(_fetch(item.image_url), size)
    except NoThumbnail:
        # Remembered, so a dead photo host costs one timeout an hour, not one per view.
        failed.touch()
        raise
    # Write then rename: two first requests at once never serve a half-written file.
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(handle, "wb") as file:
        file.write(data)
    os.replace(temporary, path)
    return path
