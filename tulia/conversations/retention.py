"""The shop's data_retention_days, enforced: old chat text is anonymised, never deleted.

What a customer wrote and what we wrote back, older than the shop's retention period,
loses its words (body, media and template variables); a resolved or closed conversation
that old loses the engine state it kept (cart, transcript lines) and its tickets lose
the copied messages and reply texts. The rows stay, so counts, timings and the links
from orders, payments, consent and return records still hold, and those records
themselves are never touched. One shop at a time, inside its tenant context.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import Q
from django.utils import timezone

from tenants.accessors import get_tenant
from tenants.context import tenant_context
from tulia.conversations.models import Conversation, InboundMessage, OutboundMessage
from tulia.handoff.models import HandoffTicket, TicketEvent

_DONE = (Conversation.Status.RESOLVED, Conversation.Status.CLOSED)
_STILL_MOVING = (
    InboundMessage.Status.RECEIVED,
    InboundMessage.Status.PROCESSING,
    OutboundMessage.Status.PENDING,
    OutboundMessage.Status.SENDING,
)


@dataclass(frozen=True)
class RetentionReport:
    inbound: int
    outbound: int
    conversations: int


def apply_retention(tenant_id: UUID | str, now: datetime | None = None) -> RetentionReport:
    """Anonymise what is older than the shop's retention period; safe to run twice."""
    days = get_tenant(tenant_id).compliance_settings.data_retention_days
    cutoff = (now or timezone.now()) - timedelta(days=days)
    with tenant_context(tenant_id) as tid:
        inbound = (
            InboundMessage.objects.filter(tenant_id=tid, received_at__lt=cutoff)
            .exclude(status__in=_STILL_MOVING)
            .filter(~Q(body="") | ~Q(content={}))
            .update(body="", content={})
        )
        outbound = (
            OutboundMessage.objects.filter(tenant_id=tid, created_at__lt=cutoff)
            .exclude(status__in=_STILL_MOVING)
            .filter(~Q(body="") | ~Q(content_variables={}))
            .update(body="", content_variables={})
        )
        old = Conversation.objects.filter(tenant_id=tid, status__in=_DONE, updated_at__lt=cutoff)
        conversations = old.exclude(state={}).update(state={})
        tickets = HandoffTicket.objects.filter(tenant_id=tid, conversation__in=old)
        tickets.exclude(context={}).update(context={})
        TicketEvent.objects.filter(tenant_id=tid, ticket__in=tickets).exclude(body="").update(
            body=""
        )
    return RetentionReport(inbound=inbound, outbound=outbound, conversations=conversations)
