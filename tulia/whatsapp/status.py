"""Applying Twilio status callbacks to stored outbound messages.

Callbacks arrive out of order, so a status only ever moves forward: `delivered` after
`read` is ignored, as is `sent` after `delivered`. The comparison and the update are
one conditional UPDATE (`WHERE status IN <lower ranks>`), so concurrent callbacks
cannot move a row backwards either.

A callback can also beat its own sid: a campaign records Twilio's answers in groups, so
"sent" may arrive before we wrote the sid it names. Such a callback is held in Redis
(`hold`, a day at most) and applied by whoever records the sid (`release_held`). The two
meet in a fixed order, so one of them always sees the other: the callback writes its
hold and then tries the row again; the recorder commits the sid and then reads holds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Generator, Iterable
from functools import cache
from uuid import UUID

from django.utils import timezone
from redis import Redis
from redis.commands.core import Script

from tenants.context import tenant_context
from tenants.keys import tenant_key
from tulia.conversations.models import OutboundMessage
from tulia.redis_client import get_redis
from tulia.whatsapp.gate import TEMPLATE_REFUSALS
from tulia.whatsapp.schemas import StatusForm

logger = logging.getLogger(__name__)
Status = OutboundMessage.Status

# Terminal failures rank with delivered: a late "sent" never revives them, and a
# message already delivered or read is not demoted by a stray failure.
RANK: dict[str, int] = {
    Status.PENDING: 0,
    Status.SENDING: 1,
    Status.QUEUED: 2,
    Status.ACCEPTED: 2,
    Status.SENT: 3,
    Status.DELIVERED: 4,
    Status.UNDELIVERED: 4,
    Status.FAILED: 4,
    Status.NOT_SENT: 4,
    Status.READ: 5,
}
_ALIASES = {"sending": Status.QUEUED, "scheduled": Status.QUEUED}
HOLD_SECONDS = 24 * 3600  # a sid unrecorded after a day was lost, not late


def lower_than(status: str) -> list[str]:
    return [name for name, rank in RANK.items() if rank < RANK[status]]


def apply_status(tenant_id: UUID | str, form: StatusForm) -> bool:
    """Record the callback's status on our message; False when it changed nothing
    (including a callback held for a sid not recorded yet)."""
    steps = apply_status_steps(tenant_id, form)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return bool(done.value)


def apply_status_steps(tenant_id: UUID | str, form: StatusForm) -> Generator[str, None, bool]:
    """`apply_status` one step at a time: it yields the name of the step it is about to
    take, so a test can run a recorder's steps in between (the hold/record ordering)."""
    status = _ALIASES.get(form.message_status, form.message_status)
    if status in (Status.FAILED, Status.UNDELIVERED) and form.error_code in TEMPLATE_REFUSALS:
        status = Status.NOT_SENT  # outside the window or a refused template: as the gate's
    if status not in RANK:
        logger.info("ignoring Twilio status %r for %s", form.message_status, form.message_sid)
        return False
    change = (status, form.error_code, form.error_message[:500])
    yield "apply"
    if _apply(tenant_id, form.message_sid, change):
        return True
    yield "look"
    with tenant_context(tenant_id) as tid:
        if OutboundMessage.objects.filter(tenant_id=tid, twilio_sid=form.message_sid).exists():
            # Recorded since the first try (then this applies), or already further on
            # (a late or repeated status: this changes nothing).
            return _apply(tenant_id, form.message_sid, change)
    yield "hold"
    key = _held_key(tenant_id, form.message_sid)
    pipe = get_redis().pipeline()
    pipe.rpush(key, json.dumps(change))
    pipe.expire(key, HOLD_SECONDS)
    pipe.execute()
    yield "apply again"
    # The sid may have been recorded (and holds read) since the first try: try again.
    return _apply(tenant_id, form.message_sid, change)


# Every key of a recorded group looked at in one call, and only the (rare) holds come
# back: {position in KEYS, its held changes, ...}, each taken key deleted.
_TAKE_HELD = """
local found = {}
for i, key in ipairs(KEYS) do
  local held = redis.call('LRANGE', key, 0, -1)
  if #held > 0 then
    redis.call('DEL', key)
    found[#found + 1] = i
    found[#found + 1] = held
  end
end
return found
"""


@cache
def _take_held_script(client: Redis) -> Script:
    # Registered once per client (clients are pooled per URL), not on every release.
    return client.register_script(_TAKE_HELD)


def release_held(tenant_id: UUID | str, sids: Iterable[str]) -> int:
    """Apply the callbacks held for `sids`, just recorded and committed; how many."""
    wanted = list(sids)
    if not wanted:
        return 0
    keys = [_held_key(tenant_id, sid) for sid in wanted]
    found = _take_held_script(get_redis())(keys=keys)
    applied = 0
    for position, held in zip(found[::2], found[1::2], strict=True):
        sid = wanted[int(position) - 1]
        for raw in held:
            status, code, message = json.loads(raw)
            applied += _apply(tenant_id, sid, (status, code, message))
    return applied


def _apply(tenant_id: UUID | str, sid: str, change: tuple[str, int | None, str]) -> bool:
    status, code, message = change
    fields: dict[str, object] = {"status": status, "status_updated_at": timezone.now()}
    if code is not None:
        fields |= {"error_code": code, "error_message": message}
    with tenant_context(tenant_id) as tid:
        updated = OutboundMessage.objects.filter(
            tenant_id=tid, twilio_sid=sid, status__in=lower_than(status)
        ).update(**fields)
    return bool(updated)


def _held_key(tenant_id: UUID | str, sid: str) -> str:
    return tenant_key(tenant_id, "held-status", sid)
