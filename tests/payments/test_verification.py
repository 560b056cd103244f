"""A success claim waits for the provider's own word: STK Push Query, Transaction Status,
or staff reading the M-Pesa statement. Denied or unanswered claims are suspected forgery."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from payments.accounts import configure_mpesa
from payments.models import PaymentEvent, PaymentMethod, PaymentRequest, PaymentStatus
from payments.mpesa.stk import initiate_stk_push
from payments.tasks import stuck_stk_verifications
from tenants.context import tenant_context
from tenants.models import Customer
from tenants.services import add_staff_member
from tests.payments.conftest import (
    FIXTURE_REFERENCE,
    events_of,
    mpesa_fixture,
    order_of,
    outbound_bodies,
    payment_of,
)

pytestmark = pytest.mark.django_db
Outcome = PaymentEvent.Outcome
PASSWORD = "x-Admin-Pass-42"


def pushed(shop, daraja, make_order, **script: Any) -> PaymentRequest:
    daraja.script(deliver=False, **script)
    order = make_order(shop, 1500)
    return initiate_stk_push(shop.id, order.pk, confirmed_amount=Decimal(1500))


def claim_success(shop, payment, post_callback) -> None:
    body = mpesa_fixture("stk_callback_success.json", payment.provider_reference)
    assert post_callback(shop, "stk_callback", body).status_code == 200


def c2b_payment(tenant) -> PaymentRequest:
    with tenant_context(tenant.id) as tid:
        return PaymentRequest.objects.get(tenant_id=tid, method=PaymentMethod.MPESA_C2B)


def test_a_slow_stk_query_is_asked_again_until_it_confirms(
    shop, daraja, make_order, post_callback
) -> None:
    payment = pushed(shop, daraja, make_order, query_pending=3)
    daraja.wait_for_callbacks()
    claim_success(shop, payment, post_callback)
    settled = payment_of(shop, payment.pk)
    assert (settled.status, settled.receipt, settled.query_count) == (
        PaymentStatus.PAID,
        "TKM4QX81ZP",
        4,
    )
    queries = [e.outcome for e in events_of(shop, kind="stk_query")]
    assert queries == [Outcome.STILL_PENDING] * 3 + [Outcome.APPLIED]
    assert order_of(shop, payment.order_id).status == "paid"
    assert sum("Payment received" in body for body in outbound_bodies(shop)) == 1


def test_a_success_daraja_never_confirms_is_suspected_forgery(
    shop, daraja, make_order, post_callback, caplog
) -> None:
    payment = pushed(shop, daraja, make_order, answered=False)
    claim_success(shop, payment, post_callback)
    settled = payment_of(shop, payment.pk)
    assert (settled.status, settled.suspected_forgery, settled.needs_review) == (
        PaymentStatus.UNKNOWN,
        True,
        True,
    )
    assert order_of(shop, payment.order_id).status == "pending_payment"
    [claim] = events_of(shop, kind="stk_callback")
    assert (claim.outcome, claim.needs_review) == (Outcome.UNCONFIRMED, True)
    assert claim.note.startswith("suspected forgery")
    assert "could not confirm" in outbound_bodies(shop)[-1]
    assert any("suspected forgery" in r.getMessage() for r in caplog.records)


def test_a_success_the_query_denies_is_suspected_forgery(
    shop, daraja, make_order, post_callback
) -> None:
    payment = pushed(shop, daraja, make_order, result_code=1032)
    daraja.wait_for_callbacks()
    claim_success(shop, payment, post_callback)
    settled = payment_of(shop, payment.pk)
    assert (settled.status, settled.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert "1032" in settled.review_reason


def test_a_failure_callback_needs_no_query(shop, daraja, make_order, post_callback) -> None:
    payment = pushed(shop, daraja, make_order, result_code=1032)
    body = mpesa_fixture("stk_callback_cancelled_1032.json", payment.provider_reference)
    post_callback(shop, "stk_callback", body)
    assert payment_of(shop, payment.pk).status == PaymentStatus.CANCELLED
    assert events_of(shop, kind="stk_query") == []


def test_a_lost_verification_is_found_by_the_sweep(shop, daraja, make_order) -> None:
    payment = pushed(shop, daraja, make_order)
    with tenant_context(shop.id) as tid:
        PaymentRequest.objects.filter(tenant_id=tid, pk=payment.pk).update(
            status=PaymentStatus.PENDING_VERIFICATION
        )
    assert stuck_stk_verifications() == []  # too fresh: its checks may still be running
    with tenant_context(shop.id) as tid:
        from datetime import timedelta

        from django.utils import timezone

        old = timezone.now() - timedelta(minutes=11)
        PaymentRequest.objects.filter(tenant_id=tid, pk=payment.pk).update(updated_at=old)
    assert stuck_stk_verifications() == [(str(shop.id), payment.pk)]


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "confirming it with M-Pesa"), ("sw", "tunayathibitisha"), ("sheng", "tunaconfirm")],
)
def test_the_customer_hears_we_are_confirming_in_their_language(
    shop, make_order, post_callback, language, words
) -> None:
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    with tenant_context(shop.id):
        Customer.objects.filter(pk=order.customer_id).update(language_preference=language)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    [message] = outbound_bodies(shop)
    assert words in message
    assert FIXTURE_REFERENCE in message


def test_c2b_unknown_to_mpesa_is_suspected_forgery(
    shop, make_order, post_callback, deliver_status_results
) -> None:
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    deliver_status_results()  # the emulated M-Pesa has no such receipt
    payment = c2b_payment(shop)
    assert (payment.status, payment.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert "R000001" in payment.review_reason
    assert order_of(shop, order.pk).status == "draft"
    assert "could not confirm" in outbound_bodies(shop)[-1]


def test_c2b_status_timing_out_in_the_queue_is_suspected_forgery(
    shop, daraja, make_order, post_callback, deliver_status_results
) -> None:
    make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    daraja.record_c2b("TKN2L5Y7QA", "174379", "1500.00")
    daraja.script_status(deliver=False, timeout=True)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    assert daraja.status_results[0][0].endswith("/status/timeout/")
    deliver_status_results()
    payment = c2b_payment(shop)
    assert (payment.status, payment.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert "timed out" in payment.review_reason


def test_a_verdict_for_a_conversation_we_never_had_is_flagged_and_ignored(
    shop, daraja, make_order, post_callback, deliver_status_results
) -> None:
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    daraja.record_c2b("TKN2L5Y7QA", "174379", "1500.00")
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    _, real = daraja.status_results[0]
    forged = copy.deepcopy(real)
    forged["Result"]["ConversationID"] = "AG_20261122_guessed0000000000000"
    post_callback(shop, "txn_status_result", json.dumps(forged))
    assert c2b_payment(shop).status == PaymentStatus.PENDING_VERIFICATION
    [flagged] = events_of(shop, kind="txn_status_result")
    assert (flagged.outcome, flagged.needs_review) == (Outcome.UNMATCHED, True)
    deliver_status_results()  # M-Pesa's real verdict still counts
    assert order_of(shop, order.pk).status == "paid"


def test_a_strangers_verdict_url_touches_nothing_here(
    shop, other_shop, daraja, make_order, post_callback
) -> None:
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    daraja.record_c2b("TKN2L5Y7QA", "174379", "1500.00")
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    _, real = daraja.status_results[0]
    post_callback(other_shop, "txn_status_result", json.dumps(real))
    assert c2b_payment(shop).status == PaymentStatus.PENDING_VERIFICATION
    assert order_of(shop, order.pk).status == "draft"
    [theirs] = events_of(other_shop, kind="txn_status_result")
    assert (theirs.outcome, theirs.needs_review) == (Outcome.UNMATCHED, True)


# --- shops without an API initiator: staff decide from the M-Pesa statement ------------
def staff(tenant, username: str, role: str) -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.fixture
def held(shop, make_order, post_callback) -> PaymentRequest:
    configure_mpesa(shop.id, initiator_name="")
    make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    payment = c2b_payment(shop)
    assert payment.status == PaymentStatus.PENDING_VERIFICATION
    return payment


def decide(client: Client, payment: PaymentRequest, action: str) -> Any:
    url = reverse("admin:payments_paymentrequest_changelist")
    return client.post(url, {"action": action, "_selected_action": [payment.pk]})


def test_owner_confirms_from_the_statement_and_it_is_audited(
    shop, held, django_capture_on_commit_callbacks
) -> None:
    owner = staff(shop, "owner_stmt", "owner")
    with django_capture_on_commit_callbacks(execute=True):
        decide(owner, held, "confirm_on_statement")
    payment = payment_of(shop, held.pk)
    assert (payment.status, payment.receipt) == (PaymentStatus.PAID, "TKN2L5Y7QA")
    assert order_of(shop, held.order_id).status == "paid"
    [record] = events_of(shop, kind="staff_confirmation")
    assert json.loads(record.raw_body)["staff"] == "owner_stmt"
    assert LogEntry.objects.filter(object_id=str(held.pk), user__username="owner_stmt").exists()
    assert "Payment received" in outbound_bodies(shop)[-1]


def test_owner_refusing_marks_suspected_forgery(shop, held) -> None:
    decide(staff(shop, "owner_refuse", "owner"), held, "refuse_not_on_statement")
    payment = payment_of(shop, held.pk)
    assert (payment.status, payment.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert order_of(shop, held.order_id).status == "draft"


def test_an_agent_cannot_confirm_from_the_statement(shop, held) -> None:
    decide(staff(shop, "agent_stmt", "agent"), held, "confirm_on_statement")
    assert payment_of(shop, held.pk).status == PaymentStatus.PENDING_VERIFICATION
    assert events_of(shop, kind="staff_confirmation") == []


def test_a_strangers_owner_cannot_confirm_this_shops_payment(shop, other_shop, held) -> None:
    decide(staff(other_shop, "stranger_stmt", "owner"), held, "confirm_on_statement")
    assert payment_of(shop, held.pk).status == PaymentStatus.PENDING_VERIFICATION


def test_a_push_being_confirmed_blocks_a_second_prompt(shop, daraja, make_order) -> None:
    from payments.errors import PaymentError

    payment = pushed(shop, daraja, make_order)
    with tenant_context(shop.id) as tid:
        PaymentRequest.objects.filter(tenant_id=tid, pk=payment.pk).update(
            status=PaymentStatus.PENDING_VERIFICATION
        )
    assert payment.order_id is not None
    with pytest.raises(PaymentError) as refused:
        initiate_stk_push(shop.id, payment.order_id, confirmed_amount=Decimal(1500), attempt=2)
    assert refused.value.code == "payment_in_progress"


def test_unanswered_status_calls_are_repeated_by_the_sweep_then_given_up(
    shop, daraja, make_order, post_callback
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from payments.mpesa.status import request_status
    from payments.tasks import unanswered_c2b_verifications

    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    daraja.record_c2b("TKN2L5Y7QA", "174379", "1500.00")
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    payment = c2b_payment(shop)  # its verdict never arrives (not delivered)
    assert unanswered_c2b_verifications() == []  # just asked
    long_ago = timezone.now() - timedelta(minutes=11)
    with tenant_context(shop.id) as tid:
        PaymentRequest.objects.filter(tenant_id=tid, pk=payment.pk).update(
            updated_at=long_ago, last_queried_at=long_ago
        )
    assert unanswered_c2b_verifications() == [(str(shop.id), payment.pk)]
    request_status(shop.id, payment.pk)
    request_status(shop.id, payment.pk)
    assert len(daraja.status_calls) == 3
    assert request_status(shop.id, payment.pk) == Outcome.UNCONFIRMED
    assert len(daraja.status_calls) == 3
    given_up = c2b_payment(shop)
    assert (given_up.status, given_up.suspected_forgery) == (PaymentStatus.UNKNOWN, True)
    assert order_of(shop, order.pk).status == "draft"
