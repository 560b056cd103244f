"""One writer per conversation thread: a short Redis lease kept alive by a heartbeat.

The lease is short (TULIA_TURN_LOCK_LEASE, seconds) so a worker that dies mid-turn
blocks its thread only briefly: once the lease runs out the sweeper sees the thread
as stranded and hands it to a live worker. A live worker keeps its lease however long
the turn takes, because a heartbeat thread renews it a few times per lease.

The lease's token doubles as a fencing token. The pipeline writes it on the messages
it claims and commits a turn only while they still carry it, so a worker that was
paused past its lease (and lost the thread to another) cannot write afterwards: the
database, not the clock, decides who wrote last. Keys are tenant-prefixed (SPEC §2).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from uuid import UUID

from django.conf import settings
from redis.exceptions import LockError, RedisError
from redis.lock import Lock

from tenants.keys import tenant_key
from tulia.redis_client import get_redis

logger = logging.getLogger(__name__)
# Renewals per lease: a lease survives a stall of three quarters of its length.
BEATS_PER_LEASE = 4


def lease_seconds() -> float:
    return float(settings.TULIA_TURN_LOCK_LEASE)


def lock_key(tenant_id: UUID | str, *parts: object) -> str:
    return tenant_key(tenant_id, "lock", *parts)


def is_held(tenant_id: UUID | str, *parts: object) -> bool:
    """Whether anyone holds the lease now (the sweeper's test for a dead holder)."""
    return bool(get_redis().exists(lock_key(tenant_id, *parts)))


@dataclass
class Lease:
    """A taken (or refused) lease; `token` is the fencing token written with claims."""

    acquired: bool
    token: str
    _lock: Lock
    _lost: threading.Event = field(default_factory=threading.Event)

    @property
    def lost(self) -> bool:
        return not self.acquired or self._lost.is_set()

    def renew(self) -> bool:
        """Reset the lease; False once it has expired and may belong to someone else."""
        if self.lost:
            return False
        try:
            self._lock.reacquire()
        except LockError:
            self._lost.set()
            return False
        except RedisError:
            # Redis away for a moment: the lease may still stand, and the fence at
            # commit catches the case where it did not.
            logger.warning("lease renewal failed on a Redis error", exc_info=True)
        return True

    def still_ours(self) -> bool:
        """Ask Redis now (before claiming work): is the lease still this token's?"""
        if self.lost:
            return False
        if not self._lock.owned():
            self._lost.set()
            return False
        return True


def _heartbeat(lease: Lease, stop: threading.Event, interval: float) -> None:
    while not stop.wait(interval):
        if not lease.renew():
            logger.warning("lease %s lost while its work ran", lease._lock.name)
            return


@contextmanager
def hold(tenant_id: UUID | str, *parts: object) -> Iterator[Lease]:
    """Try once to take the lease and renew it until the block ends; check `acquired`."""
    seconds = lease_seconds()
    # Not thread-local: the heartbeat thread renews with the token the caller took.
    lock = get_redis().lock(lock_key(tenant_id, *parts), timeout=seconds, thread_local=False)
    token = uuid.uuid4().hex
    lease = Lease(acquired=bool(lock.acquire(blocking=False, token=token)), token=token, _lock=lock)
    if not lease.acquired:
        yield lease
        return
    stop = threading.Event()
    beat = threading.Thread(
        target=_heartbeat, args=(lease, stop, seconds / BEATS_PER_LEASE), daemon=True
    )
    beat.start()
    try:
        yield lease
    finally:
        stop.set()
        beat.join()
        # If the lease expired someone else may hold it now: not ours to drop.
        with contextlib.suppress(LockError, RedisError):
            lock.release()
