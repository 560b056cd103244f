"""Reading the desk for the assignment policy: presence, load, history, queue length.

Callers hold the tenant context; every query also filters by tenant explicitly.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db.models import Count, Q

from tenants.models import Tenant
from tulia.handoff import hours
from tulia.handoff.models import AgentPresence, HandoffTicket, TicketStatus
from tulia.handoff.policy import AgentLoad, DeskSnapshot, Presence


def agent_loads(tenant_id: UUID, default_capacity: int) -> tuple[AgentLoad, ...]:
    presences = AgentPresence.objects.filter(tenant_id=tenant_id).order_by("user_id")
    active = dict(
        HandoffTicket.objects.filter(tenant_id=tenant_id, status=TicketStatus.ASSIGNED)
        .values_list("assigned_to_id")
        .annotate(n=Count("id"))
        .values_list("assigned_to_id", "n")
    )
    return tuple(
        AgentLoad(
            user_id=p.user_id,
            presence=Presence(p.status),
            active_chats=active.get(p.user_id, 0),
            capacity=p.capacity or default_capacity,
        )
        for p in presences
    )


def previous_agent_id(tenant_id: UUID, conversation_id: int, customer_id: int) -> int | None:
    """Who last handled this customer (this conversation first, then earlier ones)."""
    return (
        HandoffTicket.objects.filter(tenant_id=tenant_id, assigned_to__isnull=False)
        .filter(Q(conversation_id=conversation_id) | Q(customer_id=customer_id))
        .order_by("-assigned_at")
        .values_list("assigned_to_id", flat=True)
        .first()
    )


def waiting_ahead(tenant_id: UUID) -> int:
    return HandoffTicket.objects.filter(tenant_id=tenant_id, status=TicketStatus.OPEN).count()


def snapshot(tenant: Tenant, conversation_id: int, customer_id: int, now: datetime) -> DeskSnapshot:
    settings = tenant.handoff_settings
    return DeskSnapshot(
        in_hours=hours.is_open(settings.business_hours, tenant.timezone, now),
        agents=agent_loads(tenant.id, settings.agent_capacity),
        previous_agent_id=previous_agent_id(tenant.id, conversation_id, customer_id),
        waiting_ahead=waiting_ahead(tenant.id),
    )
