"""An agent's reply to a conversation addressed by the conversation, not the ticket.

A helpdesk integration thinks in conversations; the desk thinks in tickets. The reply
goes to the conversation's open ticket through the desk's own type-and-send path
(claim if nobody has it, the outbound gate, the ticket's audit log), so a reply from the
API and one typed on the desk are the same act.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from tenants.context import tenant_context
from tulia.conversations import queries
from tulia.conversations.models import OutboundMessage
from tulia.handoff import desk
from tulia.handoff.errors import HandoffError
from tulia.handoff.models import OPEN_TICKET_STATUSES, HandoffTicket


class NoOpenTicket(HandoffError):
    code = "no_open_ticket"


@dataclass(frozen=True)
class AgentReply:
    ticket: HandoffTicket
    messages: list[OutboundMessage]


def reply_as_agent(
    tenant_id: UUID | str, conversation_id: int, agent_id: int, body: str, request_id: str
) -> AgentReply:
    """Send `body` as the agent; NotFound for another tenant's conversation, NoOpenTicket
    while the bot has the chat (a person steps in only where a ticket asked for one)."""
    with tenant_context(tenant_id) as tid:
        found = queries.conversation(tid, conversation_id)
        ticket = HandoffTicket.objects.filter(
            tenant_id=tid, conversation_id=found.pk, status__in=OPEN_TICKET_STATUSES
        ).first()
        if ticket is None:
            raise NoOpenTicket("the bot has this conversation: no ticket is open to reply on")
        ids = desk.reply_claiming(tid, ticket.pk, agent_id, body, request_id)
        sent = list(OutboundMessage.objects.filter(tenant_id=tid, pk__in=ids).order_by("id"))
        ticket.refresh_from_db()
        return AgentReply(ticket=ticket, messages=sent)
