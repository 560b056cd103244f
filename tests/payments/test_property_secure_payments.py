"""Property 7 over generated orders, confirmations and callback sequences."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.errors import PaymentError
from payments.models import PaymentRequest, PaymentStatus
from payments.mpesa.stk import initiate_stk_push
from payments.outcomes import stk_outcome
from tenants.context import tenant_context
from tests.hypothesis_profiles import examples
from tests.payments.conftest import order_of


def latest_payment(tenant_id: object, order_id: int) -> PaymentRequest | None:
    """The order's most recent payment attempt as recorded (what order_get_status reads)."""
    with tenant_context(str(tenant_id)) as tid:
        found = PaymentRequest.objects.filter(tenant_id=tid, order_id=order_id)
        return found.order_by("-created_at", "-id").first()


pytestmark = pytest.mark.django_db
CODES = (0, 0, 1032, 1037, 1, 2001)


@dataclass(frozen=True)
class Callback:
    code: int
    amount_delta: int  # 0: the amount asked for; otherwise a wrong amount
    receipt: str


callbacks = st.builds(
    Callback,
    code=st.sampled_from(CODES),
    amount_delta=st.sampled_from((0, 0, 0, -1, 7)),
    receipt=st.sampled_from(("RCP0000001", "RCP0000002")),
)


def body(checkout_id: str, total: int, cb: Callback, order_id: int) -> str:
    stk: dict[str, object] = {
        "MerchantRequestID": "1-2-3",
        "CheckoutRequestID": checkout_id,
        "ResultCode": cb.code,
        "ResultDesc": "scripted",
    }
    if cb.code == 0:
        items = [
            ("Amount", float(total + cb.amount_delta)),
            ("MpesaReceiptNumber", f"{cb.receipt}{order_id}"),
        ]
        stk["CallbackMetadata"] = {"Item": [{"Name": n, "Value": v} for n, v in items]}
    return json.dumps({"Body": {"stkCallback": stk}})


def expected_status(first: Callback, truth: int | None = 0) -> str:
    """The first result decides; a paid-but-wrong amount is unknown. A success claim
    counts only if M-Pesa's own query (`truth`; None: never answered) says paid."""
    if first.code == 0 and truth != 0:
        return PaymentStatus.UNKNOWN  # suspected forgery: the order stays unpaid
    if first.code == 0 and first.amount_delta:
        return PaymentStatus.UNKNOWN
    return stk_outcome(first.code).status


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    total=st.integers(min_value=1, max_value=150_000),
    confirmed_delta=st.sampled_from((0, 0, 0, 1, -1, 100)),
    pool=st.lists(callbacks, min_size=1, max_size=3),
    order_of_delivery=st.lists(st.integers(min_value=0, max_value=2), min_size=1, max_size=6),
    truth=st.sampled_from((0, 0, 1032, 1, None)),
)
def test_payment_status_always_equals_what_the_authoritative_events_say(
    *,
    shop,
    daraja,
    make_order,
    post_callback,
    total,
    confirmed_delta,
    pool,
    order_of_delivery,
    truth,
) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 7: Secure Payment Processing.

    No amount the customer did not confirm is ever sent to M-Pesa, and the payment
    status (read from the record) equals what the first authoritative callback said,
    whatever duplicates, reordering or conflicting callbacks follow, and a success
    callback pays only what M-Pesa's own STK query confirms (`truth`).
    """
    order = make_order(shop, total)
    pushes_before = len(daraja.pushes)
    if truth is None:
        daraja.script(deliver=False, answered=False)
    else:
        daraja.script(deliver=False, result_code=truth)
    confirmed = Decimal(total + confirmed_delta)
    if confirmed_delta:
        with pytest.raises(PaymentError, match="amount_not_confirmed"):
            initiate_stk_push(shop.id, order.pk, confirmed_amount=confirmed)
        assert len(daraja.pushes) == pushes_before
        assert latest_payment(shop.id, order.pk) is None
        daraja.scripts.clear()
        return
    payment = initiate_stk_push(shop.id, order.pk, confirmed_amount=confirmed)
    assert daraja.pushes[payment.provider_reference].body["Amount"] == total

    delivered = [pool[i % len(pool)] for i in order_of_delivery]
    for cb in delivered:
        post_callback(shop, "stk_callback", body(payment.provider_reference, total, cb, order.pk))

    recorded = latest_payment(shop.id, order.pk)
    assert recorded is not None
    assert recorded.status == expected_status(delivered[0], truth)
    paid = recorded.status == PaymentStatus.PAID
    assert (order_of(shop, order.pk).status == "paid") == paid
    disagreeing = any(
        expected_status(cb) != expected_status(delivered[0])
        or (cb.code == 0 and delivered[0].code == 0 and cb != delivered[0])
        for cb in delivered[1:]
    )
    assert recorded.needs_review == (disagreeing or recorded.status == PaymentStatus.UNKNOWN)
