"""One writer per conversation thread: a Redis lock with a lease.

The lease bounds how long a crashed worker can block a thread: after it expires the
redelivered task (or the sweeper's) takes over. Keys are tenant-prefixed (SPEC §2).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from uuid import UUID

import redis
from django.conf import settings
from redis.exceptions import LockError
from redis.lock import Lock

from tenants.keys import tenant_key


def lease_seconds() -> float:
    configured = getattr(settings, "TULIA_TURN_LOCK_LEASE", None)
    return float(configured or os.environ.get("TULIA_TURN_LOCK_LEASE") or 120)


@functools.cache
def redis_client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


@dataclass
class Held:
    """Whether the lock was taken, and a way to extend the lease between turns."""

    acquired: bool
    _lock: Lock

    def renew(self) -> bool:
        """Reset the lease; False when it had already expired and the lock is lost."""
        if not self.acquired:
            return False
        try:
            return bool(self._lock.reacquire())
        except LockError:
            self.acquired = False
            return False


@contextmanager
def hold(tenant_id: UUID | str, *parts: object) -> Iterator[Held]:
    """Try once to take the lock; the caller must check `acquired`."""
    lock = redis_client().lock(tenant_key(tenant_id, "lock", *parts), timeout=lease_seconds())
    held = Held(acquired=bool(lock.acquire(blocking=False)), _lock=lock)
    try:
        yield held
    finally:
        if held.acquired:
            # If the lease expired someone else may hold it now: not ours to drop.
            with contextlib.suppress(LockError):
                lock.release()
