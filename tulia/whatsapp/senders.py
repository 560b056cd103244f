"""Our number → tenant and sender, with a short per-process cache for the hot path.

Resolution costs six database round trips; every webhook needs it, and the answer
changes only when an admin edits a sender. A few seconds of caching is the price of a
deactivated sender or a rotated auth token taking that long to apply in each process.
Only successful resolutions are cached. The test profile caches nothing by default,
since test databases are rolled back under the cache.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings

from tenants.resolution import ResolvedSender, resolve_whatsapp_number

MAX_ENTRIES = 4096
_cache: dict[str, tuple[float, ResolvedSender]] = {}
_lock = threading.Lock()


def cache_seconds() -> float:
    return float(settings.TULIA_SENDER_CACHE_SECONDS)


def resolve_sender(number: str) -> ResolvedSender:
    """Like `resolve_whatsapp_number` (raises NotFound), served from cache when fresh."""
    ttl = cache_seconds()
    now = time.monotonic()
    with _lock:
        cached = _cache.get(number)
    if cached is not None and cached[0] > now:
        return cached[1]
    resolved = resolve_whatsapp_number(number)
    if ttl > 0:
        with _lock:
            if len(_cache) >= MAX_ENTRIES:
                _cache.clear()
            _cache[number] = (now + ttl, resolved)
    return resolved


def forget_all() -> None:
    with _lock:
        _cache.clear()
