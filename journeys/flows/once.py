"""Remembering a side effect by request id, because the gateway may retry a turn.

A retried turn runs against the state from before the first attempt, so the state
cannot tell that the order was already created. Redis can: the order id is kept
under the tenant-prefixed request id for a while, and the retry reuses it.
Best effort: if Redis is down the turn still works (at worst one extra draft order).
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError

from journeys.context import RunContext
from tulia.redis_client import get_redis

logger = logging.getLogger("tulia.journeys")
TTL_SECONDS = 2 * 24 * 3600


def _key(ctx: RunContext, what: str) -> str:
    return f"tulia:{ctx.tenant_id}:flows:{ctx.conversation_id}:{ctx.request_id}:{what}"


def remembered(ctx: RunContext, what: str) -> str | None:
    try:
        value = get_redis().get(_key(ctx, what))
    except RedisError:
        logger.warning("redis unavailable; %s not deduplicated", what)
        return None
    return value.decode() if isinstance(value, bytes) else None


def remember(ctx: RunContext, what: str, value: str) -> None:
    try:
        get_redis().set(_key(ctx, what), value, ex=TTL_SECONDS)
    except RedisError:
        logger.warning("redis unavailable; %s not remembered", what)
