"""The one way to reach Redis: a pooled client per (URL, timeout), always with timeouts.

A client without timeouts waits forever on a stalled Redis and takes the request (or
the worker) with it; every caller gets `TULIA_REDIS_TIMEOUT_SECONDS` unless it needs a
shorter one (the readiness probe).
"""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings


@cache
def _client(url: str, timeout: float) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def client_for(url: str, timeout: float | None = None) -> redis.Redis:
    """A client for `url` (the app's Redis, or the Celery broker when it differs)."""
    return _client(url, settings.TULIA_REDIS_TIMEOUT_SECONDS if timeout is None else timeout)


def get_redis() -> redis.Redis:
    return client_for(settings.REDIS_URL)
