"""Reading the desk for the assignment policy: presence, load, history, queue length.

Callers hold the tenant context; every query also filters by tenant explicitly.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from tenants.models import Tenant
from tulia.handoff import hours
from tulia.handoff.models import AgentPresence, HandoffTicket, TicketStatus
from tulia.handoff.policy import AgentLoad, DeskSnapshot, Presence


def _count(tickets: QuerySet[HandoffTicket]) -> Coalesce:
    """How many `tickets`, as a scalar subquery of the outer query (0 when none)."""
    counted = tickets.order_by().values("tenant_id").annotate(n=Count("id")).values("n")
    return Coalesce(Subquery(counted), 0)


def agent_loads(tenant_id: UUID, default_capacity: int) -> tuple[AgentLoad, ...]:
    assigned = HandoffTicket.objects.filter(
        tenant_id=tenant_id, status=TicketStatus.ASSIGNED, assigned_to_id=OuterRef("user_id")
    )
    presences = (
        AgentPresence.objects.filter(tenant_id=tenant_id)
        .annotate(active=_count(assigned))
        .order_by("user_id")
    )
    return tuple(
        AgentLoad(
            user_id=p.user_id,
            presence=Presence(p.status),
            active_chats=p.active,
            capacity=p.capacity or default_capacity,
        )
        for p in presences
    )


def queue_facts(tenant_id: UUID, conversation_id: int, customer_id: int) -> tuple[int | None, int]:
    """Who last handled this customer (this conversation first, then earlier ones), and
    how many tickets wait: two scalars read in one round trip."""
    previous = (
        HandoffTicket.objects.filter(tenant_id=tenant_id, assigned_to__isnull=False)
        .filter(Q(conversation_id=conversation_id) | Q(customer_id=customer_id))
        .order_by("-assigned_at")
        .values("assigned_to_id")[:1]
    )
    waiting = HandoffTicket.objects.filter(tenant_id=tenant_id, status=TicketStatus.OPEN)
    row = (
        Tenant.objects.filter(pk=tenant_id)
        .values(previous=Subquery(previous), waiting=_count(waiting))
        .get()
    )
    return row["previous"], row["waiting"]


def snapshot(tenant: Tenant, conversation_id: int, customer_id: int, now: datetime) -> DeskSnapshot:
    settings = tenant.handoff_settings
    previous, waiting = queue_facts(tenant.id, conversation_id, customer_id)
    return DeskSnapshot(
        in_hours=hours.is_open(settings.business_hours, tenant.timezone, now),
        agents=agent_loads(tenant.id, settings.agent_capacity),
        previous_agent_id=previous,
        waiting_ahead=waiting,
    )
