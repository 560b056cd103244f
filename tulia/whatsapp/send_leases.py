"""The send leases of many conversations at once, for a batch of outbound messages.

`delivery.deliver_conversation` takes one conversation's send lease (a Redis key under
`locks.lock_key(tenant, "send", conversation)`) for every run. A campaign batch sends
one message in each of a hundred conversations; taking a hundred leases one by one,
each with its own heartbeat thread, cost more than the sends. Here one token covers the
batch: the keys are set together (one round trip), renewed together by one heartbeat,
and released together, each only while it still holds our token.

The keys and their meaning are exactly the single lease's, so a batch and a
conversation's deliverer exclude each other, and the sweeper (which looks for `sending`
rows whose conversation has no live lease) leaves a batch's rows alone while it runs.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from uuid import UUID

from redis.exceptions import RedisError

from tulia.conversations import locks
from tulia.redis_client import get_redis

logger = logging.getLogger(__name__)
# Renew each key still holding our token; answers how many did.
_RENEW = """
local kept = 0
for _, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    redis.call('pexpire', key, ARGV[2])
    kept = kept + 1
  end
end
return kept
"""
_RELEASE = """
for _, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then redis.call('del', key) end
end
return 0
"""


@dataclass
class BatchLease:
    """The conversations whose send lease the batch holds, under one token."""

    token: str
    held: dict[int, str]  # conversation id → its lease key
    _lost: threading.Event = field(default_factory=threading.Event)

    @property
    def lost(self) -> bool:
        """True once a renewal found a key no longer ours: stop sending."""
        return self._lost.is_set()

    def renew(self, milliseconds: int) -> None:
        if not self.held or self.lost:
            return
        keys = list(self.held.values())
        try:
            kept = int(get_redis().eval(_RENEW, len(keys), *keys, self.token, milliseconds))
        except RedisError:
            # As with a single lease: the keys may still stand; a send after a real loss
            # is caught by the in-doubt lookup, never by resending blindly.
            logger.warning("batch send lease renewal failed on a Redis error", exc_info=True)
            return
        if kept < len(keys):
            logger.warning("batch send lease lost %d of %d keys", len(keys) - kept, len(keys))
            self._lost.set()


def _take(tenant_id: UUID, conversation_ids: Iterable[int], token: str, ms: int) -> dict[int, str]:
    ids = list(dict.fromkeys(conversation_ids))
    keys = [locks.lock_key(tenant_id, "send", conversation_id) for conversation_id in ids]
    pipe = get_redis().pipeline(transaction=False)
    for key in keys:
        pipe.set(key, token, nx=True, px=ms)
    taken = pipe.execute()
    return {cid: key for cid, key, ok in zip(ids, keys, taken, strict=True) if ok}


def _heartbeat(lease: BatchLease, stop: threading.Event, interval: float, ms: int) -> None:
    while not stop.wait(interval):
        lease.renew(ms)
        if lease.lost:
            return


@contextmanager
def hold_many(tenant_id: UUID, conversation_ids: Iterable[int]) -> Iterator[BatchLease]:
    """Take every free send lease among `conversation_ids` (those another deliverer
    holds are left out of `held`) and keep them until the block ends."""
    seconds = locks.lease_seconds()
    ms = max(1, int(seconds * 1000))
    token = uuid.uuid4().hex
    lease = BatchLease(token=token, held=_take(tenant_id, conversation_ids, token, ms))
    stop = threading.Event()
    beat = threading.Thread(
        target=_heartbeat,
        args=(lease, stop, seconds / locks.BEATS_PER_LEASE, ms),
        daemon=True,
    )
    beat.start()
    try:
        yield lease
    finally:
        stop.set()
        beat.join()
        keys = list(lease.held.values())
        if keys:
            with contextlib.suppress(RedisError):
                get_redis().eval(_RELEASE, len(keys), *keys, token)
