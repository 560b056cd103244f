"""One cached provider token per tenant, shared by every worker through Redis.

Daraja invalidates the previous token whenever a new one is issued, so two workers
fetching at once would knock each other's token out. A short Redis lock (cache.add is
atomic SET NX) lets one worker fetch while the others wait for its result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from uuid import UUID

from django.core.cache import cache

from tenants.keys import tenant_key

_LOCK_SECONDS = 15
_WAIT_STEP = 0.05


def cached_token(
    tenant_id: UUID | str,
    provider: str,
    fetch: Callable[[], tuple[str, int]],
) -> str:
    """Return the tenant's cached token, calling `fetch` → (token, ttl) only on a miss."""
    key = tenant_key(tenant_id, provider, "token")
    token: str | None = cache.get(key)
    if token:
        return token
    lock = tenant_key(tenant_id, provider, "token-lock")
    deadline = time.monotonic() + _LOCK_SECONDS
    while not cache.add(lock, "1", timeout=_LOCK_SECONDS):
        time.sleep(_WAIT_STEP)
        token = cache.get(key)
        if token:
            return token
        if time.monotonic() > deadline:
            break  # the lock holder died; fetch ourselves rather than hang
    try:
        token, ttl = fetch()
        cache.set(key, token, timeout=max(ttl, 1))
        return token
    finally:
        cache.delete(lock)


def forget_token(tenant_id: UUID | str, provider: str) -> None:
    """Drop a token the provider refused, so the next call fetches a fresh one."""
    cache.delete(tenant_key(tenant_id, provider, "token"))
