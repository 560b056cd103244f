"""Holding back inbound messages over a rate limit: stored, never turned, told once.

The message row is already written when this runs, so a refused message is kept (an
agent can still read it) but marked `rate_limited`, which the pipeline and the sweeper
never pick up. The first refused message of a window queues one polite notice.
"""

from __future__ import annotations

import logging
from uuid import UUID

from redis.exceptions import RedisError

from tenants.accessors import get_tenant
from tenants.services import get_or_create_customer
from tulia.conversations.models import Conversation, InboundMessage
from tulia.conversations.services import open_conversation
from tulia.observability import metrics
from tulia.ratelimit import Verdict, check_inbound
from tulia.text import say
from tulia.whatsapp.outbound import queue_reply

logger = logging.getLogger(__name__)
# A person owns these conversations: the bot says nothing, not even about limits.
_HUMAN_OWNED = (Conversation.Status.WAITING, Conversation.Status.AGENT_ACTIVE)


def admit(tenant_id: UUID, from_e164: str) -> Verdict:
    """Count the message; with Redis down, fail open: a lost limit beats a lost turn."""
    try:
        return check_inbound(tenant_id, from_e164)
    except RedisError as exc:
        logger.warning("rate limiter unavailable, message let through: %s", exc)
        return Verdict(allowed=True)


def hold_back(
    tenant_id: UUID,
    sender_id: int,
    message_id: int,
    from_e164: str,
    *,
    request_id: str,
    verdict: Verdict,
) -> None:
    """Mark the stored message rate-limited and, once per window, queue the notice.

    Runs in the caller's transaction, so the mark and the notice commit with the row.
    While a human owns the conversation the message is still stored for the agent, but
    the notice is dropped: the customer hears from the agent, not from the bot.
    """
    metrics.RATE_LIMITED.labels(tenant=str(tenant_id), scope=verdict.scope or "").inc()
    customer, _ = get_or_create_customer(tenant_id, from_e164)
    conversation = open_conversation(tenant_id, customer.pk, sender_id)
    message = InboundMessage.objects.filter(tenant_id=tenant_id, pk=message_id)
    message.update(status=InboundMessage.Status.RATE_LIMITED, conversation=conversation)
    if verdict.notify and conversation.status not in _HUMAN_OWNED:
        language = customer.language_preference or get_tenant(tenant_id).default_language
        queue_reply(tenant_id, conversation.pk, [say("gateway.rate_limit", language)], request_id)
