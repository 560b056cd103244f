"""A whole-order return refunds the delivery fee only where the shop's return policy
says so (the Kicks document: "The delivery fee is not refunded"); a return of some
lines never carries the fee; whatever the fee and policy, never more than paid, once."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.models import PaymentMethod, Refund
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.hypothesis_profiles import examples
from tests.payments.test_refunds import _paid, make_order_seq
from tulia.commerce.models import Order
from tulia.conversations.models import Conversation
from tulia.returns import decisions
from tulia.returns.eligibility import Action
from tulia.returns.models import ReturnPolicy, ReturnRequest
from tulia.returns.service import ReturnAsk, request_return

pytestmark = pytest.mark.django_db
PAID = Decimal(1500)


def _delivered_return(shop: Tenant, make_order: Any, fee: Decimal) -> ReturnRequest:
    """A 1,500 order (goods 1,500 - fee, delivery `fee`) paid, delivered, returned whole."""
    order = _paid(shop, make_order, PaymentMethod.MPESA_STK, receipt=f"F{make_order_seq()}")
    with tenant_context(shop.id) as tid:
        Order.objects.filter(pk=order.pk).update(
            subtotal=PAID - fee,
            delivery_fee=fee,
            fulfilment="delivery",
            status="delivered",
            delivered_at=order.paid_at,
        )
        conversation = Conversation.objects.get(tenant_id=tid, customer_id=order.customer_id)
    ask = ReturnAsk(order_reference=order.reference, action=Action.RETURN, reason_text="small")
    outcome = request_return(shop.id, conversation.pk, ask)
    decisions.decide(shop.id, outcome.return_request_id, approve=True, actor="staff:o")
    with tenant_context(shop.id):
        return ReturnRequest.objects.get(pk=outcome.return_request_id)


def _policy(shop: Tenant, refund_fee: bool) -> None:
    with tenant_context(shop.id) as tid:
        policy = ReturnPolicy.objects.filter(tenant_id=tid).first() or ReturnPolicy(tenant_id=tid)
        policy.refund_delivery_fee = refund_fee
        policy.save()


def test_the_fee_stays_with_the_shop_by_default(shop, make_order) -> None:
    request = _delivered_return(shop, make_order, Decimal(200))
    refund = decisions.refund(shop.id, request.pk, actor="staff:owner")
    assert refund.amount == Decimal(1300)


def test_a_policy_that_refunds_the_fee_refunds_all_paid(shop, make_order) -> None:
    _policy(shop, refund_fee=True)
    request = _delivered_return(shop, make_order, Decimal(200))
    assert decisions.refund(shop.id, request.pk, actor="staff:owner").amount == PAID


def test_the_demo_sneaker_shop_keeps_the_fee_as_its_document_says() -> None:
    from tulia.returns.demo import POLICIES

    assert POLICIES["kicks-nairobi"]["refund_delivery_fee"] is False


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    fee=st.integers(min_value=0, max_value=1499).map(Decimal),
    refund_fee=st.booleans(),
    clicks=st.integers(min_value=1, max_value=3),
)
def test_never_more_than_paid_never_twice_whatever_the_fee(
    shop, make_order, fee, refund_fee, clicks
) -> None:
    _policy(shop, refund_fee)
    request = _delivered_return(shop, make_order, fee)
    made = {decisions.refund(shop.id, request.pk, actor="staff:o").pk for _ in range(clicks)}
    with tenant_context(shop.id):
        [refund] = Refund.objects.filter(order_id=request.order_id)
    assert made == {refund.pk}
    assert refund.amount == (PAID if refund_fee else PAID - fee)
    assert refund.amount <= PAID
