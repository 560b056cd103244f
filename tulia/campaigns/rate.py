"""The per-second cap of one sender, exact over any rolling second, shared by every worker.

A counter per calendar second let 21 sends into one rolling second under load (20 at the
end of one second, more at the start of the next, and a slow send landing late). Here
each send takes a slot in a sorted set of the sender's send times, judged and written by
one Lua script on Redis's own clock: a slot is granted only while fewer than `cap` slots
lie within the last second, so no rolling second, seen from any number of processes,
holds more than `cap` grants.

Twilio counts a message when it arrives, a little after its grant, and a worker on a
busy machine can be held up between the two. So a grant counts for a second and a
guard (`WINDOW_US`): a send held up by less than the guard still cannot land in a
second that already has `cap` others. The price is a rate a little under the cap
(20 a second becomes about 17).

Real WhatsApp senders are capped at tens or a few hundred messages a second, and at that
rate every send asks for its own slot just before its call. Above `EXACT_UP_TO` (the
bench's "throttles lifted") a call takes up to a tenth of a second's worth at once: the
cap then only keeps a runaway in check, and one Redis call per send would cost more than
it guards.

A gate can also read one counter in the same call (`watch`: the shop's opt-out counter,
optouts.py), so an exact send costs one Redis round trip, not two: `watched` is the
counter as read with the last grant, or None when the slot was granted earlier.

The gate's time is Redis's (`RedisClock`), pushed ahead by the microseconds held at the
clock's `ahead_key` when it has one: that is how the tests move time instead of
sleeping through it. The shift is read inside the script, so every grant's time, from
whichever process, still comes from one clock that only moves forward.
"""

from __future__ import annotations

import time
import uuid
from uuid import UUID

from tenants.keys import tenant_key
from tulia.redis_client import get_redis

EXACT_UP_TO = 500
WINDOW_US = 1_150_000  # one second, and the guard

# KEYS[1]: the sender's send times (sorted set, microseconds on the gate's clock); then,
# when ARGV[5] is '1', a counter to read along; then, when the clock has one, the key
# holding how far it runs ahead of Redis's own (µs).
# ARGV: cap, slots wanted, a nonce that keeps members unique, the window (µs), '1' or '0'.
# Returns {granted, now_us, wait_us, counter}: wait_us is how long until the oldest slot
# in the window leaves it (0 when something was granted); counter is 0 when unset.
_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local cap, wanted, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
local counter, next_key = 0, 2
if ARGV[5] == '1' then
  counter = tonumber(redis.call('GET', KEYS[2]) or '0')
  next_key = 3
end
if KEYS[next_key] then now = now + tonumber(redis.call('GET', KEYS[next_key]) or '0') end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = cap - redis.call('ZCARD', KEYS[1])
if free <= 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, now, tonumber(oldest[2]) + window - now + 1, counter}
end
local granted = math.min(free, wanted)
for i = 1, granted do
  redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], 2000)
return {granted, now, 0, counter}
"""


class RedisClock:
    """Redis's own clock, and real waiting for a slot: what every sender process shares."""

    ahead_key: str | None = None  # no shift: Redis's time as it is

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


REDIS_CLOCK = RedisClock()


class RateGate:
    """At most `per_second` sends through one sender in any rolling second."""

    def __init__(
        self,
        tenant_id: UUID,
        sender_id: int,
        per_second: int,
        watch: str | None = None,
        clock: RedisClock = REDIS_CLOCK,
    ) -> None:
        self.per_second = per_second
        self.key = tenant_key(tenant_id, "campaign-rate", sender_id)
        self.clock = clock
        self.keys = [self.key, watch] if watch else [self.key]
        self.watching = "1" if watch else "0"
        if clock.ahead_key:
            self.keys.append(clock.ahead_key)
        self.watched: int | None = None  # `watch` as read with the last grant
        self.slots = 0  # granted earlier and not used yet (only above EXACT_UP_TO)
        self.script = get_redis().register_script(_SCRIPT)

    def take(self, wanted: int = 1) -> int:
        """Block until a slot is ours; returns the grant's time on the gate's clock (µs).
        `wanted`: sends still to come, so a lifted cap can grant several at once."""
        if self.slots > 0:
            self.slots -= 1
            self.watched = None
            return 0
        ask = 1 if self.per_second <= EXACT_UP_TO else max(1, min(wanted, self.per_second // 10))
        while True:
            nonce = uuid.uuid4().hex
            args: list[int | str] = [self.per_second, ask, nonce, WINDOW_US, self.watching]
            granted, now, wait, counter = (int(n) for n in self.script(keys=self.keys, args=args))
            if granted:
                self.slots = granted - 1
                self.watched = counter if self.watching == "1" else None
                return now
            self.clock.sleep(wait / 1_000_000)
