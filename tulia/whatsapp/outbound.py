"""Queueing WhatsApp messages to customers: store the parts, send after commit.

Other apps (payments, handoff) call `send_to_customer`; the turn pipeline calls
`queue_reply`. Either way the rows are written in the caller's transaction and the
delivery task is enqueued only once it commits, so a rolled-back turn sends nothing.
"""

from __future__ import annotations

from uuid import UUID

from django.db import transaction

from tenants.accessors import get_owned
from tenants.context import tenant_context
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.conversations.services import latest_conversation
from tulia.whatsapp import dispatch
from tulia.whatsapp.splitting import split_body


def _store_parts(tenant_id: UUID, conversation_id: int, body: str, request_id: str) -> list[int]:
    parts = split_body(body)
    rows = [
        OutboundMessage(
            tenant_id=tenant_id,
            conversation_id=conversation_id,
            body=part,
            part_index=index,
            part_count=len(parts),
            request_id=request_id[:64],
        )
        for index, part in enumerate(parts)
    ]
    return [row.pk for row in OutboundMessage.objects.bulk_create(rows)]


def queue_reply(
    tenant_id: UUID | str, conversation_id: int, bodies: list[str], request_id: str
) -> list[int]:
    """Store `bodies` (split as needed) for the conversation; ids in sending order."""
    with tenant_context(tenant_id) as tid:
        get_owned(Conversation, tid, conversation_id)  # NotFound for another tenant's
        ids = [
            pk
            for body in bodies
            if body.strip()
            for pk in _store_parts(tid, conversation_id, body, request_id)
        ]
        if ids:
            transaction.on_commit(lambda: dispatch.enqueue_delivery(tid, conversation_id))
    return ids


def send_to_customer(
    tenant_id: UUID | str, customer_id: int, bodies: list[str], request_id: str
) -> list[int]:
    """Message a customer where they last talked to the shop (e.g. a payment outcome)."""
    conversation = latest_conversation(tenant_id, customer_id)
    return queue_reply(tenant_id, conversation.pk, bodies, request_id)
