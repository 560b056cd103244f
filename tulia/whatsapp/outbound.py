"""Queueing WhatsApp messages to customers: through the gate, store, send after commit.

Every outbound path ends here: the turn pipeline (`queue_reply`), the desk, payment
outcomes and later order and return updates (`send_to_customer` with a purpose and
its facts), broadcasts (`queue_template`). Each message first passes the gate
(tulia.whatsapp.gate): free-form inside the 24-hour window, the purpose's approved
template outside it, or a row recorded as not sent with the reason.

Rows are written in the caller's transaction and the delivery task is enqueued only
once it commits, so a rolled-back turn sends nothing.
"""

from __future__ import annotations

from uuid import UUID

from django.db import transaction

from tenants.accessors import get_owned
from tenants.context import tenant_context
from tulia.conversations.models import Conversation, OutboundMessage
from tulia.conversations.services import latest_conversation
from tulia.whatsapp import dispatch, gate
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.purposes import BOT_REPLY
from tulia.whatsapp.splitting import split_body


def _row(
    conversation: Conversation, body: str, request_id: str, **fields: object
) -> OutboundMessage:
    return OutboundMessage(
        tenant_id=conversation.tenant_id,
        conversation_id=conversation.pk,
        body=body,
        request_id=request_id[:64],
        **fields,
    )


def _free_form_rows(
    conversation: Conversation, bodies: list[str], request_id: str, purpose: str
) -> list[OutboundMessage]:
    rows = []
    for body in bodies:
        parts = split_body(body)
        rows += [
            _row(
                conversation, part, request_id, purpose=purpose, part_index=i, part_count=len(parts)
            )
            for i, part in enumerate(parts)
        ]
    return rows


def _store(
    conversation: Conversation,
    decision: gate.Decision,
    bodies: list[str],
    request_id: str,
    purpose: str,
    *,
    deliver: bool = True,
) -> list[int]:
    if decision.kind == "free_form":
        rows = _free_form_rows(conversation, bodies, request_id, purpose)
    elif decision.kind == "template" and decision.template is not None:
        template = decision.template
        rows = [
            _row(
                conversation,
                template.render(decision.variables),
                request_id,
                purpose=purpose,
                content_sid=template.content_sid,
                content_variables=decision.variables,
                category=template.category,
            )
        ]
    else:
        rows = [
            _row(
                conversation,
                "\n\n".join(bodies),
                request_id,
                purpose=purpose,
                status=OutboundMessage.Status.NOT_SENT,
                error_code=decision.code,
                error_message=decision.reason[:500],
            )
        ]
    created = OutboundMessage.objects.bulk_create(rows)
    if deliver and decision.kind != "not_sent":
        tid, conversation_id = conversation.tenant_id, conversation.pk
        transaction.on_commit(lambda: dispatch.enqueue_delivery(tid, conversation_id))
    return [row.pk for row in created]


def queue_reply(
    tenant_id: UUID | str,
    conversation_id: int,
    bodies: list[str],
    request_id: str,
    *,
    purpose: str = BOT_REPLY,
    facts: dict[str, str] | None = None,
) -> list[int]:
    """Store `bodies` for the conversation as the gate allows; ids in sending order.

    Inside the window the bodies go as they are (split as needed). Outside it the
    purpose's template goes instead, filled from `facts`; or one row records why
    nothing could go.
    """
    texts = [body for body in bodies if body.strip()]
    with tenant_context(tenant_id):
        conversation = get_owned(Conversation, tenant_id, conversation_id)  # NotFound if not ours
        if not texts:
            return []
        decision = gate.decide(conversation, purpose, facts)
        return _store(conversation, decision, texts, request_id, purpose)


def queue_template(
    tenant_id: UUID | str,
    conversation_id: int,
    template_id: int,
    variables: dict[str, str],
    request_id: str,
    *,
    purpose: str = "",
    deliver: bool = True,
) -> list[int]:
    """Send one of the shop's templates as it is (broadcasts, nudges), window or not.

    `deliver=False` stores the row without enqueueing its delivery: the caller (a
    campaign run) commits its own claim first and delivers it itself.
    """
    with tenant_context(tenant_id):
        conversation = get_owned(Conversation, tenant_id, conversation_id)
        template = get_owned(MessageTemplate, tenant_id, template_id)
        decision = gate.decide_template(conversation, template, variables)
        label = purpose or template.purpose or template.name
        body = [template.render(variables)]
        return _store(conversation, decision, body, request_id, label, deliver=deliver)


def send_to_customer(
    tenant_id: UUID | str,
    customer_id: int,
    bodies: list[str],
    request_id: str,
    *,
    purpose: str = BOT_REPLY,
    facts: dict[str, str] | None = None,
) -> list[int]:
    """Message a customer where they last talked to the shop (a payment outcome, an
    order update, a return decision); `purpose` and `facts` fill the template when
    the customer's 24-hour window has closed (see tulia.whatsapp.purposes)."""
    conversation = latest_conversation(tenant_id, customer_id)
    return queue_reply(tenant_id, conversation.pk, bodies, request_id, purpose=purpose, facts=facts)
