"""A refund the provider accepted is not yet a refund: PesaPal's is done when
GetTransactionStatus reads REVERSED (the IPN says when to look, the sweep looks anyway);
a Reversal/B2C whose result never reached us is found with Daraja's Transaction Status
by our call's OriginatorConversationID. Silence ends with a person, never "failed"."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from payments import tasks
from payments.accounts import configure_mpesa
from payments.emulators.daraja_refunds import RefundScript
from payments.emulators.pesapal import PesapalEmulator
from payments.models import PaymentMethod, PaymentStatus, Refund, RefundMethod, RefundStatus
from payments.pesapal.checkout import create_checkout
from payments.refund_checks import MAX_CHECKS, due_for_check
from payments.refunds import request_refund
from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.payments.conftest import FIXTURE_TRACKING_ID, outbound_bodies, pesapal_fixture
from tests.payments.test_refunds import RECEIPT, _deliver, _paid
from tulia.commerce.models import Order
from tulia.conversations.services import open_conversation

pytestmark = pytest.mark.django_db
LATER = timedelta(days=1)


def _card_paid(shop: Tenant, pesapal: PesapalEmulator, make_order: Any, post: Any) -> Order:
    order = make_order(shop, 1500)
    open_conversation(shop.id, order.customer_id, active_senders(shop.id)[0].pk)
    payment = create_checkout(shop.id, order.pk, confirmed_amount=Decimal(1500))
    pesapal.settle(payment.provider_reference, paid=True, notify=False)
    post(shop, "pesapal_ipn", _ipn(payment.provider_reference))
    with tenant_context(shop.id):
        assert Order.objects.get(pk=order.pk).paid_at is not None
        return Order.objects.get(pk=order.pk)


def _ipn(tracking_id: str) -> str:
    return pesapal_fixture("ipn_post.json", **{FIXTURE_TRACKING_ID: tracking_id, "KIC-7H2Q-1": "x"})


def _card_refund(shop: Tenant, order: Order, capture: Any) -> Refund:
    with capture(execute=True):
        made = request_refund(shop.id, order.pk, None, key=f"t:{order.pk}", actor="staff:o")
    return _reload(shop, made.pk)


def _reload(shop: Tenant, pk: int) -> Refund:
    with tenant_context(shop.id):
        return Refund.objects.get(pk=pk)


def _tracking(shop: Tenant, order: Order) -> str:
    with tenant_context(shop.id):
        return order_payment(order).provider_reference


def order_payment(order: Order) -> Any:
    from payments.models import PaymentRequest

    return PaymentRequest.objects.get(order=order, status=PaymentStatus.PAID)


def test_a_card_refund_accepted_is_submitted_until_pesapal_shows_it_reversed(
    shop, pesapal, make_order, post_callback, django_capture_on_commit_callbacks
) -> None:
    order = _card_paid(shop, pesapal, make_order, post_callback)
    refund = _card_refund(shop, order, django_capture_on_commit_callbacks)
    assert (refund.method, refund.status) == (RefundMethod.PESAPAL, RefundStatus.SUBMITTED)
    assert not any("refund" in text for text in outbound_bodies(shop))
    post_callback(shop, "pesapal_ipn", _ipn(_tracking(shop, order)))  # nothing new yet
    assert _reload(shop, refund.pk).status == RefundStatus.SUBMITTED
    pesapal.complete_refund(notify=False)
    post_callback(shop, "pesapal_ipn", _ipn(_tracking(shop, order)))
    done = _reload(shop, refund.pk)
    assert (done.status, done.needs_attention) == (RefundStatus.SUCCEEDED, False)
    assert any("to your card" in text for text in outbound_bodies(shop))
    post_callback(shop, "pesapal_ipn", _ipn(_tracking(shop, order)))  # a repeat changes nothing
    with tenant_context(shop.id):
        assert order_payment(order).needs_review is False


def test_the_sweep_finds_a_completed_card_refund_whose_ipn_was_lost(
    shop, pesapal, make_order, post_callback, django_capture_on_commit_callbacks
) -> None:
    order = _card_paid(shop, pesapal, make_order, post_callback)
    refund = _card_refund(shop, order, django_capture_on_commit_callbacks)
    pesapal.complete_refund(notify=False)
    assert due_for_check() == []  # too soon to ask
    assert (str(shop.id), refund.pk) in due_for_check(timezone.now() + LATER)
    assert tasks.check_refund(str(shop.id), refund.pk) == RefundStatus.SUCCEEDED


def test_a_card_refund_pesapal_turns_down_goes_to_a_person_not_to_failed(
    shop, pesapal, make_order, post_callback, django_capture_on_commit_callbacks
) -> None:
    order = _card_paid(shop, pesapal, make_order, post_callback)
    refund = _card_refund(shop, order, django_capture_on_commit_callbacks)
    pesapal.fail_refund()
    assert tasks.check_refund(str(shop.id), refund.pk) == RefundStatus.SUBMITTED
    with tenant_context(shop.id):
        Refund.objects.filter(pk=refund.pk).update(checks=MAX_CHECKS[RefundMethod.PESAPAL] - 1)
    assert tasks.check_refund(str(shop.id), refund.pk) == "needs_attention"
    stuck = _reload(shop, refund.pk)
    assert (stuck.status, stuck.needs_attention) == (RefundStatus.SUBMITTED, True)
    assert (str(shop.id), refund.pk) not in due_for_check(timezone.now() + LATER)


@pytest.fixture
def reversal_shop(shop: Tenant, daraja: Any) -> Tenant:
    configure_mpesa(shop.id, base_url=daraja.base_url, refund_method="reversal")
    daraja.record_c2b(RECEIPT, "174379", "1500")
    return shop


def _reversal_without_result(shop: Tenant, daraja: Any, make_order: Any, capture: Any) -> Refund:
    daraja.refund_scripts.append(RefundScript(deliver=False))
    order = _paid(shop, make_order, PaymentMethod.MPESA_C2B)
    with capture(execute=True):
        made = request_refund(shop.id, order.pk, None, key=f"r:{order.pk}", actor="staff:o")
    daraja.refund_results.clear()  # the result callback is lost on the way
    refund = _reload(shop, made.pk)
    assert refund.status == RefundStatus.SUBMITTED
    return refund


def test_a_lost_reversal_result_is_found_by_the_sweeps_status_call(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    refund = _reversal_without_result(reversal_shop, daraja, make_order, capture)
    daraja.script_status(deliver=False)
    with capture(execute=True):
        assert tasks.sweep_submitted_refunds() == 0  # quiet for too short a while
    with tenant_context(reversal_shop.id):
        Refund.objects.filter(pk=refund.pk).update(submitted_at=timezone.now() - LATER)
    with capture(execute=True):
        assert tasks.sweep_submitted_refunds() == 1
    [call] = daraja.status_calls
    assert call["OriginalConversationID"] == refund.originator_id
    daraja.refund_results.extend(daraja.status_results)  # posted to our refund URL
    daraja.status_results.clear()
    assert _deliver(client, daraja, capture) == [200]
    done = _reload(reversal_shop, refund.pk)
    assert (done.status, done.checks) == (RefundStatus.SUCCEEDED, 1)
    assert done.provider_reference
    assert any("refund of" in text for text in outbound_bodies(reversal_shop))


def test_a_reversal_nobody_ever_answers_ends_with_a_person(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    refund = _reversal_without_result(reversal_shop, daraja, make_order, capture)
    for _ in range(MAX_CHECKS[RefundMethod.MPESA_REVERSAL]):
        daraja.script_status(deliver=False)
        assert tasks.check_refund(str(reversal_shop.id), refund.pk) == RefundStatus.SUBMITTED
    assert tasks.check_refund(str(reversal_shop.id), refund.pk) == "needs_attention"
    stuck = _reload(reversal_shop, refund.pk)
    assert (stuck.status, stuck.needs_attention) == (RefundStatus.SUBMITTED, True)


def test_a_status_answer_for_another_call_changes_nothing(
    reversal_shop, daraja, make_order, client, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    refund = _reversal_without_result(reversal_shop, daraja, make_order, capture)
    daraja.script_status(deliver=False)
    tasks.check_refund(str(reversal_shop.id), refund.pk)
    [(url, body)] = daraja.status_results
    body["Result"]["ConversationID"] = "AG_forged"
    daraja.refund_results.append((url, body))
    assert _deliver(client, daraja, capture) == [200]
    assert _reload(reversal_shop, refund.pk).status == RefundStatus.SUBMITTED


def test_staff_see_the_refunds_waiting_for_a_person_and_only_their_own(  # noqa: PLR0917
    shop, other_shop, pesapal, make_order, post_callback, django_capture_on_commit_callbacks
) -> None:
    from django.test import Client
    from django.urls import reverse

    from tenants.services import add_staff_member

    order = _card_paid(shop, pesapal, make_order, post_callback)
    refund = _card_refund(shop, order, django_capture_on_commit_callbacks)
    with tenant_context(shop.id):
        Refund.objects.filter(pk=refund.pk).update(needs_attention=True)
    url = reverse("admin:payments_refund_changelist") + "?needs_attention__exact=1"
    for tenant, username, sees in ((shop, "own_ref", True), (other_shop, "other_ref", False)):
        add_staff_member(tenant.id, username=username, password="x-Admin-Pass-42", role="owner")
        staff = Client()
        assert staff.login(username=username, password="x-Admin-Pass-42")
        page = staff.get(url)
        assert page.status_code == 200
        assert (order.reference in page.content.decode()) is sees
