"""Card checkout through PesaPal: IPN registered once per tenant, one order per attempt."""

from __future__ import annotations

from decimal import Decimal
from uuid import UUID

import httpx

from payments.accounts import pesapal_account
from payments.errors import ProviderError
from payments.models import PaymentMethod, PaymentRequest, PesapalAccount
from payments.payable import payable_order
from payments.pesapal.client import CheckoutOrder, PesapalClient
from payments.routes import callback_url
from tenants.context import tenant_context


def ensure_ipn(client: PesapalClient) -> str:
    """The tenant's ipn_id, registering our IPN URL on first use (or when it moved)."""
    account = client.account
    url = callback_url(account.tenant_id, "pesapal_ipn")
    if account.ipn_id and account.ipn_url == url:
        return account.ipn_id
    answer = client.register_ipn(url)
    if not answer.ipn_id:
        raise ProviderError("no_ipn_id", "RegisterIPN answered without an ipn_id")
    with tenant_context(account.tenant_id) as tid:
        PesapalAccount.objects.filter(tenant_id=tid).update(ipn_id=answer.ipn_id, ipn_url=url)
    account.ipn_id, account.ipn_url = answer.ipn_id, url
    return answer.ipn_id


def create_checkout(
    tenant_id: UUID | str,
    order_id: int,
    *,
    confirmed_amount: Decimal,
    attempt: int = 1,
    http: httpx.Client | None = None,
) -> PaymentRequest:
    """A PesaPal order for the confirmed total; the same attempt twice returns the first."""
    from tulia.commerce.orders import mark_locked_order_payment_pending

    with tenant_context(tenant_id) as tid:
        key = f"pesapal:{order_id}:{attempt}"
        existing = PaymentRequest.objects.filter(tenant_id=tid, idempotency_key=key).first()
        if existing is not None:
            return existing
        order = payable_order(tid, order_id, PaymentMethod.PESAPAL_CARD, confirmed_amount)
        client = PesapalClient(pesapal_account(tid), http=http)
        merchant_reference = f"{order.reference}-{attempt}"
        answer = client.submit_order(
            CheckoutOrder(
                merchant_reference=merchant_reference,
                amount=order.total,
                currency=order.currency,
                description=f"Order {order.reference}",
                callback_url=callback_url(tid, "pesapal_return"),
                notification_id=ensure_ipn(client),
                phone_number=order.customer.phone_e164,
            )
        )
        if not answer.order_tracking_id or not answer.redirect_url:
            raise ProviderError("bad_response", "SubmitOrderRequest gave no tracking id or URL")
        payment = PaymentRequest.objects.create(
            tenant_id=tid,
            order=order,
            customer_id=order.customer_id,
            method=PaymentMethod.PESAPAL_CARD,
            attempt=attempt,
            idempotency_key=key,
            amount=order.total,
            currency=order.currency,
            phone_e164=order.customer.phone_e164,
            account_reference=merchant_reference[:20],
            provider_reference=answer.order_tracking_id,
            redirect_url=answer.redirect_url,
        )
        mark_locked_order_payment_pending(order)  # payable_order locked it
        return payment
