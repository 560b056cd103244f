"""Telling the customer a payment's outcome on WhatsApp, once per status.

The only caller of the gateway's outbound path from payments, so a change there
changes one place. The claim (notified_status) is written in the same transaction as
the queued message: a retried task sends nothing twice, a failed one sends nothing.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from uuid import UUID

from payments.messages import Facts, language_for, render
from payments.models import MpesaAccount, PaymentMethod, PaymentRequest, PaymentStatus
from payments.outcomes import stk_outcome
from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import Tenant
from tulia.conversations.models import Conversation
from tulia.conversations.services import answered_language

logger = logging.getLogger("tulia.payments")

_REASON_BY_STATUS = {
    PaymentStatus.PAID: "paid",
    PaymentStatus.CANCELLED: "cancelled",
    PaymentStatus.TIMEOUT: "timeout",
    PaymentStatus.UNKNOWN: "review",
}


def reason_for(payment: PaymentRequest) -> str:
    if payment.status == PaymentStatus.PENDING_VERIFICATION:
        return "confirming"
    if payment.suspected_forgery and payment.status != PaymentStatus.PAID:
        return "not_confirmed"
    if payment.status in _REASON_BY_STATUS:
        return _REASON_BY_STATUS[PaymentStatus(payment.status)]
    if payment.method == PaymentMethod.PESAPAL_CARD:
        return "card_failed"
    return stk_outcome(payment.result_code).reason


def _chat_language(payment: PaymentRequest) -> str | None:
    """The language the order's conversation was last answered in (a Sheng chat hears
    about its payment in Sheng); None when the order came from elsewhere."""
    conversation_id = payment.order.conversation_id if payment.order is not None else None
    if conversation_id is None:
        return None
    state = (
        Conversation.objects.filter(tenant_id=payment.tenant_id, pk=conversation_id)
        .values_list("state", flat=True)
        .first()
    ) or {}
    return answered_language(state)


def _shillings(amount: Decimal) -> str:
    return f"{amount:,.2f}".removesuffix(".00")


def facts_for(payment: PaymentRequest, tenant: Tenant) -> Facts:
    account = MpesaAccount.objects.filter(tenant_id=tenant.pk).first()
    order = payment.order
    c2b = None
    if account and "mpesa_c2b" in tenant.payment_methods and order is not None:
        till = account.kind == MpesaAccount.Kind.TILL
        c2b = (account.kind, account.party_b, "" if till else order.reference)
    return Facts(
        order=order.reference if order is not None else payment.account_reference,
        amount=_shillings(payment.amount),
        receipt=payment.receipt,
        reason=reason_for(payment),
        c2b=c2b,
        card_enabled="pesapal_card" in tenant.payment_methods,
    )


def send_outcome_once(tenant_id: UUID | str, payment_id: int) -> bool:
    """Queue the outcome message unless this status was already told; True if queued."""
    from tulia.whatsapp.outbound import send_to_customer
    from tulia.whatsapp.purposes import payment_notice  # the gate's template facts

    with tenant_context(tenant_id) as tid:
        payment = (
            PaymentRequest.objects.select_for_update(of=("self",))
            .select_related("order", "customer")
            .filter(tenant_id=tid, pk=payment_id)
            .first()
        )
        if payment is None or payment.status == PaymentStatus.PENDING:
            return False
        if payment.notified_status == payment.status or payment.customer is None:
            return False
        tenant = Tenant.objects.get(pk=tid)
        lang = language_for(
            payment.customer.language_preference,
            _chat_language(payment),
            tenant.default_language,
        )
        body = render(facts_for(payment, tenant), lang, tenant.tone_style)
        try:
            notice = payment_notice(payment)
            send_to_customer(tid, payment.customer.pk, [body], f"payment-{payment.pk}", **notice)
        except NotFound:
            logger.warning("payment %s: customer cannot be messaged (no sender)", payment.pk)
            return False
        payment.notified_status = payment.status
        payment.notifications_sent += 1
        payment.save(update_fields=["notified_status", "notifications_sent", "updated_at"])
        return True
