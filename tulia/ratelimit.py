"""Inbound message rate limits per customer per tenant, and per tenant, in Redis.

Fixed one-minute windows counted atomically by a Lua script. Over a limit the message is
still stored, but no turn runs; the customer is told once per window (`notify`), so a
flood gets one polite notice instead of silence or a reply per message.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from django.conf import settings

from tenants.keys import tenant_key
from tulia import clock
from tulia.redis_client import get_redis

WINDOW_SECONDS = 60

# KEYS: customer counter, tenant counter, customer notice flag.
# ARGV: customer limit, tenant limit, window ttl.
# Returns {scope, notify}: scope 0 = allowed, 1 = customer limit, 2 = tenant limit.
_SCRIPT = """
local customer = redis.call('INCR', KEYS[1])
if customer == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
local tenant = redis.call('INCR', KEYS[2])
if tenant == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
local scope = 0
if customer > tonumber(ARGV[1]) then scope = 1
elseif tenant > tonumber(ARGV[2]) then scope = 2 end
if scope == 0 then return {0, 0} end
local first = redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3])
return {scope, first and 1 or 0}
"""
_SCOPES = {1: "customer", 2: "tenant"}


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    scope: str | None = None  # which limit refused the message
    notify: bool = False  # True for the first refused message of the window only


def check_inbound(tenant_id: UUID | str, customer: str, *, now: float | None = None) -> Verdict:
    """Count one inbound message from `customer` (e.g. the E.164 number) for the tenant."""
    window = int((clock.now() if now is None else now) // WINDOW_SECONDS)
    keys = [
        tenant_key(tenant_id, "rate", "customer", customer, window),
        tenant_key(tenant_id, "rate", "tenant", window),
        tenant_key(tenant_id, "rate", "noticed", customer, window),
    ]
    limits = [settings.TULIA_RATE_CUSTOMER_PER_MINUTE, settings.TULIA_RATE_TENANT_PER_MINUTE]
    scope, notify = get_redis().eval(_SCRIPT, 3, *keys, *limits, WINDOW_SECONDS * 2)
    if scope == 0:
        return Verdict(allowed=True)
    return Verdict(allowed=False, scope=_SCOPES[int(scope)], notify=bool(notify))
