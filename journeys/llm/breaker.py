"""Circuit breaker per LLM provider, in process memory.

After `failure_threshold` consecutive failures the breaker opens and calls are skipped
(the deterministic result stands) for `cooldown_seconds`; then it lets one trial call
through (half-open). Success closes it, failure opens it for another cool-down. Process
memory is enough: each worker learns a provider is down after a few failures, which is
cheaper than a Redis round trip on every turn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

BreakerState = Literal["closed", "open", "half_open"]


@dataclass
class CircuitBreaker:
    failure_threshold: int = 3
    cooldown_seconds: float = 30.0
    clock: Callable[[], float] = time.monotonic
    _failures: int = 0
    _opened_at: float | None = None
    _trial_in_flight: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self.clock() - self._opened_at >= self.cooldown_seconds:
            return "half_open"
        return "open"

    def allow(self) -> bool:
        """May a call go out now? In half-open state only one trial at a time."""
        with self._lock:
            state = self.state
            if state == "closed":
                return True
            if state == "half_open" and not self._trial_in_flight:
                self._trial_in_flight = True
                return True
            return False

    def record_success(self) -> None:
        with self._lock:
            self._failures, self._opened_at, self._trial_in_flight = 0, None, False

    def record_failure(self) -> None:
        with self._lock:
            self._failures += 1
            self._trial_in_flight = False
            if self._opened_at is not None or self._failures >= self.failure_threshold:
                self._opened_at = self.clock()


_registry: dict[str, CircuitBreaker] = {}
_registry_lock = threading.Lock()


def breaker_for(provider: str) -> CircuitBreaker:
    """The shared breaker of one provider (keyed by base URL), created on first use."""
    with _registry_lock:
        return _registry.setdefault(provider, CircuitBreaker())
