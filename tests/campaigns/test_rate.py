"""The per-second cap holds over every rolling second while several runners race for it."""

from __future__ import annotations

import itertools
import math
import threading
import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tulia.campaigns import optouts
from tulia.campaigns.rate import EXACT_UP_TO, RateGate, RedisClock
from tulia.redis_client import get_redis

_senders = itertools.count(1)
SECOND_US = 1_000_000


class MovedClock(RedisClock):
    """Redis's clock, pushed ahead by every wait instead of sleeping through it.

    The shift lives in Redis and the gate's script reads it, so racing runners see one
    clock that only moves forward; a wait moves it by at least the time waited for."""

    def __init__(self) -> None:
        self.key = f"test-clock:{uuid.uuid4().hex}"
        self.ahead_key = self.key

    def sleep(self, seconds: float) -> None:
        get_redis().incrby(self.key, math.ceil(seconds * SECOND_US))

    def moved_us(self) -> int:
        return int(get_redis().get(self.key) or 0)


def _race(
    tenant: uuid.UUID, sender: int, cap: int, runners: int, each: int, *, clock: RedisClock
) -> list[int]:
    """Grant times (the gate's clock, µs) of `runners` threads, each taking `each` slots
    through its own gate, all starting together."""
    start = threading.Barrier(runners)
    grants: list[int] = []
    guard = threading.Lock()

    def run() -> None:
        gate = RateGate(tenant, sender, cap, clock=clock)
        start.wait()
        mine = [gate.take() for _ in range(each)]
        with guard:
            grants.extend(mine)

    threads = [threading.Thread(target=run) for _ in range(runners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(grants)


@settings(max_examples=examples(30), deadline=None, database=None)
@given(
    cap=st.integers(min_value=1, max_value=6),
    runners=st.integers(min_value=2, max_value=4),
    extra=st.integers(min_value=1, max_value=4),
)
def test_no_rolling_second_holds_more_than_the_cap(cap: int, runners: int, extra: int) -> None:
    total = cap + extra  # more than a second's worth, so somebody must wait
    each = -(-total // runners)
    clock = MovedClock()
    try:
        grants = _race(uuid.uuid4(), next(_senders), cap, runners, each, clock=clock)
        assert clock.moved_us() > 0  # somebody waited: the clock moved, nobody slept
    finally:
        get_redis().delete(clock.key)
    assert len(grants) == runners * each  # every runner got every slot it asked for
    # cap + 1 grants inside one second would put grants[i] and grants[i + cap] less
    # than a second apart.
    assert all(grants[i + cap] - grants[i] >= SECOND_US for i in range(len(grants) - cap)), grants


def test_senders_and_shops_do_not_share_a_cap() -> None:
    shop, other_shop = uuid.uuid4(), uuid.uuid4()
    sender = next(_senders)
    gates = [RateGate(shop, sender, 2), RateGate(shop, next(_senders), 2)]
    gates.append(RateGate(other_shop, sender, 2))
    grants = [gate.take() for gate in gates for _ in range(2)]
    # six grants with no wait: each gate had its own two slots
    assert max(grants) - min(grants) < SECOND_US


def test_a_lifted_cap_grants_slots_ahead() -> None:
    gate = RateGate(uuid.uuid4(), next(_senders), EXACT_UP_TO * 10)
    first = gate.take(wanted=50)
    assert first > 0
    assert gate.slots == 49  # the next 49 sends need no Redis call


def test_the_opt_out_counter_is_read_with_each_exact_grant() -> None:
    shop = uuid.uuid4()
    counter = optouts.key(shop)
    gate = RateGate(shop, next(_senders), 100, watch=counter)
    gate.take()
    assert gate.watched == 0  # no withdrawal yet: the counter is unset
    get_redis().incrby(counter, 3)
    gate.take()
    assert gate.watched == 3
    lifted = RateGate(shop, next(_senders), EXACT_UP_TO * 10, watch=counter)
    lifted.take(wanted=5)
    assert lifted.watched == 3
    lifted.take()  # a slot granted earlier: nothing read, the batch reads it itself
    assert lifted.watched is None
