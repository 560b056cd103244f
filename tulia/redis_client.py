"""One Redis connection pool per process, from settings.REDIS_URL."""

from __future__ import annotations

from functools import cache

import redis
from django.conf import settings


@cache
def _client_for(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def get_redis() -> redis.Redis:
    return _client_for(settings.REDIS_URL)
