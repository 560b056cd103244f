"""PesaPal down at the level the customer sees: a card checkout in a real chat turn."""

from __future__ import annotations

import pytest

from payments.emulators.pesapal import PesapalEmulator
from payments.emulators.server import Reply
from payments.models import PaymentRequest
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.flows.chat import start_chat
from tulia.text import entry

pytestmark = pytest.mark.django_db
PAYMENT_FAILED = entry("flows.payment_failed", "en")
CARD = "3"  # the third of the shop's payment methods


def _payments(shop: Tenant) -> int:
    with tenant_context(shop.id):
        return PaymentRequest.objects.count()


def test_pesapal_down_customer_is_told_and_can_pay_by_card_once_it_is_back(
    shop: Tenant, pesapal: PesapalEmulator
) -> None:
    pesapal.down(Reply(503, "<html>Service Unavailable</html>", "text/html"))
    chat = start_chat(shop)
    for line in ("I want sneakers", "1", "41", "1", CARD):
        chat.send(line)
    assert chat.send("yes") in PAYMENT_FAILED  # told plainly, with PAY to retry
    assert (_payments(shop), pesapal.checkouts) == (0, {})
    pesapal.up()
    assert "YES" in chat.send("PAY")
    reply = chat.send("yes")
    [checkout] = pesapal.checkouts.values()
    assert pesapal.page_url(checkout.tracking_id) in reply
    assert _payments(shop) == 1
