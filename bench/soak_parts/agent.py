"""A shop agent who answers every open ticket and hands the conversation back."""

from __future__ import annotations

import uuid

from django.contrib.auth import get_user_model

from soak_parts.world import SoakShop
from tenants.context import tenant_context
from tulia.handoff import desk
from tulia.handoff.models import HandoffTicket


def _agent_id(shop: SoakShop) -> int:
    user = get_user_model().objects.get(username=shop.agent_username)
    return int(user.pk)


def serve_open_tickets(shop: SoakShop) -> int:
    """Claim, answer and hand back each open ticket of the shop; how many were served."""
    with tenant_context(shop.tenant_id) as tid:
        tickets = list(
            HandoffTicket.objects.filter(tenant_id=tid, status="open").values_list("pk", flat=True)
        )
    agent = _agent_id(shop)
    for ticket in tickets:
        desk.claim(shop.tenant_id, ticket, agent)
        desk.reply(shop.tenant_id, ticket, agent, "Hi, Wanjiru here. Sorted!", _rid())
        desk.hand_back(shop.tenant_id, ticket, agent)
    return len(tickets)


def _rid() -> str:
    return f"soak-agent-{uuid.uuid4().hex[:12]}"
