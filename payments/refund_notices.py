"""Telling the customer where their refund stands, in their language and the shop's tone,
through the gate."""

from __future__ import annotations

import logging

from payments.models import Refund, RefundStatus
from tenants.accessors import get_tenant
from tenants.errors import NotFound
from tulia.commerce.models import Order
from tulia.conversations.services import notice_language
from tulia.text import format_money, label, notice
from tulia.whatsapp import purposes

logger = logging.getLogger("tulia.payments.refunds")


def refund_text(refund: Refund, order: Order, language: str, tone: str | None = None) -> str:
    if refund.status == RefundStatus.SUCCEEDED:
        how = label("returns.refund_how", refund.method, language)
        amount = format_money(refund.amount, order.currency)
        return notice(
            "returns.refund_sent",
            language,
            tone,
            amount=amount,
            reference=order.reference,
            how=how,
        )
    return notice("returns.refund_failed", language, tone, reference=order.reference)


def tell_customer(refund: Refund, order: Order) -> None:
    from tulia.whatsapp.outbound import send_to_customer  # whatsapp imports payments

    if refund.status not in (RefundStatus.SUCCEEDED, RefundStatus.FAILED):
        return
    language = notice_language(order.tenant_id, order.customer_id)
    body = refund_text(refund, order, language, get_tenant(order.tenant_id).tone_style)
    try:
        send_to_customer(
            order.tenant_id,
            order.customer_id,
            [body],
            f"refund-{refund.pk}-{refund.status}",
            purpose=purposes.RETURN_DECISION,
            facts={"order": order.reference, "decision": body[:200]},
        )
    except NotFound:
        logger.warning("refund %s: customer has no conversation to tell", refund.pk)
