"""The shop's tone words its payment, refund, return and order notices; the facts are the
same (issue 18 item 4).

Two shops with different tones receive the same Daraja success callback for the same
order reference and amount, through the real callback endpoint and its Celery task.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from payments.emulators.daraja import DarajaEmulator
from payments.models import PaymentRequest, PaymentStatus, Refund, RefundStatus
from payments.mpesa.stk import initiate_stk_push
from payments.refund_notices import refund_text
from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tenants.services import update_tenant
from tests.payments.conftest import MakeOrder, Post, mpesa_fixture, outbound_bodies, payment_of
from tulia.commerce.lifecycle import customer_text
from tulia.commerce.models import Order
from tulia.returns.messages import verdict_message
from tulia.text import LANGUAGES, tones

pytestmark = pytest.mark.django_db

REFERENCE, RECEIPT, AMOUNT = "KIC-7H2Q", "TKM4QX81ZP", "1,500"
# What a notice states, whatever its wording: money, receipt numbers, order references.
FACT = re.compile(r"KES [\d,]+|\b[A-Z0-9]{3,}(?:-[A-Z0-9]+)?\b")


def _pushed(
    tenant: Tenant, tone: str, language: str, daraja: DarajaEmulator, make_order: MakeOrder
) -> PaymentRequest:
    update_tenant(tenant, tone_style=tone, allowed_languages=list(LANGUAGES))
    daraja.script(deliver=False)
    order = make_order(tenant, 1500, ref=REFERENCE)
    with tenant_context(tenant.id) as tid:
        Customer.objects.filter(tenant_id=tid, pk=order.customer_id).update(
            language_preference=language
        )
    return initiate_stk_push(tenant.id, order.pk, confirmed_amount=Decimal(1500))


def _paid_notice(tenant: Tenant, payment: PaymentRequest, post_callback: Post) -> str:
    body = mpesa_fixture("stk_callback_success.json", payment.provider_reference)
    assert post_callback(tenant, "stk_callback", body).status_code == 200
    assert payment_of(tenant, payment.pk).status == PaymentStatus.PAID
    [notice] = outbound_bodies(tenant)
    return notice


@pytest.mark.parametrize("language", LANGUAGES)
def test_two_shops_tones_word_the_same_payment_differently_with_the_same_facts(
    *,
    shop: Tenant,
    other_shop: Tenant,
    daraja: DarajaEmulator,
    make_order: MakeOrder,
    post_callback: Post,
    language: str,
) -> None:
    formal = _pushed(shop, "professional", language, daraja, make_order)
    playful = _pushed(other_shop, "playful", language, daraja, make_order)
    formal_text = _paid_notice(shop, formal, post_callback)
    playful_text = _paid_notice(other_shop, playful, post_callback)
    assert formal_text != playful_text
    for text, tone in ((formal_text, "professional"), (playful_text, "playful")):
        expected = tones(language)[tone]["payments.paid"]
        assert text == expected.format(amount=AMOUNT, order=REFERENCE, receipt=RECEIPT)
    assert sorted(FACT.findall(formal_text)) == sorted(FACT.findall(playful_text))
    assert {f"KES {AMOUNT}", REFERENCE, RECEIPT} <= set(FACT.findall(formal_text))


def test_a_friendly_shop_reads_the_plain_notice(
    shop: Tenant, daraja: DarajaEmulator, make_order: MakeOrder, post_callback: Post
) -> None:
    payment = _pushed(shop, "friendly", "sheng", daraja, make_order)
    text = _paid_notice(shop, payment, post_callback)
    assert text.startswith("Doh imefika: KES 1,500")
    assert RECEIPT in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_refund_return_and_order_notices_follow_the_tone_with_the_same_facts(
    language: str,
) -> None:
    """Unsaved rows: the wording functions read only the fields they state."""
    order = Order(reference=REFERENCE, currency="KES", refund_due=True)
    refund = Refund(status=RefundStatus.SUCCEEDED, method="mpesa_b2c", amount=Decimal(1500))
    verdict = {"reason": "time_expired", "window_days": 30, "days_since_delivery": 45}
    for words in (
        lambda tone: refund_text(refund, order, language, tone),
        lambda tone: verdict_message(verdict, language=language, ticket_id=71, tone=tone),
        lambda tone: customer_text(order, "cancelled", "out of stock", language, tone),
    ):
        said = {tone: words(tone) for tone in (None, "professional", "playful")}
        assert len(set(said.values())) == 3, said
        facts = {
            tone: sorted(re.findall(r"KES [\d,]+|KIC-7H2Q|\b\d+\b", text))
            for tone, text in said.items()
        }
        assert facts["professional"] == facts["playful"] == facts[None], facts
