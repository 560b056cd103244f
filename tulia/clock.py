"""The wall clock behind one name, so a test can hold it still instead of sleeping.

Only code whose behaviour depends on where "now" falls (the rate-limit windows) reads
it from here; timestamps stored in the database keep using Django's timezone.now().
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

_held: list[float] = []  # a stack, so holds nest


def now() -> float:
    """Seconds since the epoch, or the moment held by the innermost `held_at`."""
    return _held[-1] if _held else time.time()


@contextmanager
def held_at(moment: float) -> Iterator[None]:
    _held.append(moment)
    try:
        yield
    finally:
        _held.pop()
