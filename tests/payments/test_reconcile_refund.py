"""Refunding money that matches no order, from the reconciliation page: who, when and
why are kept and audited, the item leaves the queue once all the money went back, and
no sequence of clicks refunds more than arrived or records one refund twice."""

from __future__ import annotations

import threading
from decimal import Decimal
from itertools import count

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.accounts import configure_mpesa
from payments.emulators.daraja_refunds import RefundScript
from payments.models import PaymentEvent, PaymentRequest, Refund, RefundMethod, RefundStatus
from payments.reconcile import ReconcileError, match_to_order, refund_unmatched
from tenants.context import tenant_context
from tenants.services import add_staff_member
from tests.hypothesis_profiles import examples
from tests.payments.conftest import events_of, mpesa_fixture, order_of
from tests.payments.test_refunds import _deliver

pytestmark = pytest.mark.django_db
PASSWORD = "x-Refund-Money-42"
QUEUE = "admin:payments_paymenttoreconcile_changelist"
RECEIVED = Decimal("1500.00")
receipts = count(1)


def _login(tenant, username: str, role: str = "owner") -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _unknown_money(shop, post_callback) -> PaymentEvent:
    """KES 1,500 with a reference that matches no order, through the C2B callback."""
    receipt = f"TKR{next(receipts):07d}"
    body = mpesa_fixture("c2b_confirmation_unknown_reference.json", TKN2L5Y7QA=receipt)
    post_callback(shop, "c2b_confirmation", body)
    [event] = events_of(shop, kind="c2b_confirmation", reference=receipt)
    return event


@pytest.fixture
def unknown_money(shop, post_callback) -> PaymentEvent:
    return _unknown_money(shop, post_callback)


def _url(event: PaymentEvent) -> str:
    return reverse("admin:payments_paymenttoreconcile_resolve", args=[event.pk])


def _queue_ids(client: Client) -> list[int]:
    return [obj.pk for obj in client.get(reverse(QUEUE)).context["cl"].result_list]


def _refunds(shop, event: PaymentEvent) -> list[Refund]:
    with tenant_context(shop.id) as tid:
        return list(Refund.objects.filter(tenant_id=tid, payment_id=event.payment_id))


def _refund_form(client: Client, event: PaymentEvent, **post: str):
    key = client.get(_url(event)).context["refund_key"]
    return client.post(_url(event), {"decision": "refund", "key": key, **post})


def test_the_owner_refunds_money_with_no_order_from_its_page(shop, unknown_money) -> None:
    owner = _login(shop, "owner_f1")
    page = owner.get(_url(unknown_money)).content.decode()
    assert "refund-money" in page
    assert 'value="1500.00"' in page
    response = _refund_form(owner, unknown_money, amount="", reason="paid the wrong shop")
    assert response.status_code == 302
    assert unknown_money.pk not in _queue_ids(owner)
    [refund] = _refunds(shop, unknown_money)
    assert (refund.order_id, refund.amount, refund.status) == (None, RECEIVED, "succeeded")
    assert (refund.actor, refund.reason) == ("staff:owner_f1", "paid the wrong shop")
    [staff] = events_of(shop, kind="staff_confirmation")
    assert staff.note == "refund of 1500.00 by owner_f1: paid the wrong shop"
    assert staff.payment_id == unknown_money.payment_id
    logged = LogEntry.objects.filter(object_id=str(unknown_money.pk)).get()
    assert "paid the wrong shop" in logged.get_change_message()


def test_the_same_form_sent_twice_refunds_once(shop, unknown_money) -> None:
    owner = _login(shop, "owner_f2")
    key = owner.get(_url(unknown_money)).context["refund_key"]
    post = {"decision": "refund", "key": key, "amount": "500", "reason": "overpaid"}
    owner.post(_url(unknown_money), post)
    owner.post(_url(unknown_money), post)
    assert [r.amount for r in _refunds(shop, unknown_money)] == [Decimal("500.00")]
    page = owner.get(_url(unknown_money)).content.decode()
    assert "1,000" in page  # what is left, and the item is still waiting
    assert unknown_money.pk in _queue_ids(owner)


def test_more_than_arrived_or_no_reason_is_refused(shop, unknown_money) -> None:
    owner = _login(shop, "owner_f3")
    too_much = _refund_form(owner, unknown_money, amount="1500.01", reason="x")
    assert too_much.status_code == 302
    _refund_form(owner, unknown_money, amount="100", reason="  ")
    _refund_form(owner, unknown_money, amount="lots", reason="x")
    assert _refunds(shop, unknown_money) == []
    assert unknown_money.pk in _queue_ids(owner)


def test_money_partly_refunded_is_not_matched_to_an_order(shop, make_order, unknown_money) -> None:
    owner = _login(shop, "owner_f4")
    order = make_order(shop, 1500)
    _refund_form(owner, unknown_money, amount="200", reason="overpaid")
    owner.post(_url(unknown_money), {"decision": "match", "order": order.pk})
    assert order_of(shop, order.pk).status == "draft"
    _refund_form(owner, unknown_money, amount="1300", reason="the rest")
    assert unknown_money.pk not in _queue_ids(owner)
    assert sum(r.amount for r in _refunds(shop, unknown_money)) == RECEIVED


def test_an_agent_cannot_refund(shop, unknown_money) -> None:
    agent = _login(shop, "agent_f", "agent")
    assert "refund-money" not in agent.get(_url(unknown_money)).content.decode()
    post = {"decision": "refund", "key": "k", "amount": "", "reason": "x"}
    assert agent.post(_url(unknown_money), post).status_code == 403
    assert _refunds(shop, unknown_money) == []


def test_a_matched_payment_is_not_refunded_here(shop, make_order, unknown_money) -> None:
    order = make_order(shop, 1500)
    match_to_order(shop.id, unknown_money.payment_id, order.pk, staff="owner")
    with pytest.raises(ReconcileError):
        refund_unmatched(
            shop.id, unknown_money.payment_id, None, key="late", staff="owner", reason="x"
        )


def test_a_reversal_daraja_turns_down_brings_the_money_back_to_the_queue(
    shop, daraja, unknown_money, client, django_capture_on_commit_callbacks
) -> None:
    configure_mpesa(shop.id, base_url=daraja.base_url, refund_method="reversal")
    daraja.refund_scripts.append(RefundScript(deliver=False))  # it does not know the receipt
    owner = _login(shop, "owner_f5")
    with django_capture_on_commit_callbacks(execute=True):
        _refund_form(owner, unknown_money, amount="", reason="wrong shop")
    [refund] = _refunds(shop, unknown_money)
    assert (refund.method, refund.status) == (RefundMethod.MPESA_REVERSAL, "submitted")
    assert _queue_ids(owner) == []
    _deliver(client, daraja, django_capture_on_commit_callbacks)
    [refund] = _refunds(shop, unknown_money)
    assert refund.status == RefundStatus.FAILED
    [back] = _queue_ids(owner)
    assert events_of(shop, pk=back)[0].payment_id == unknown_money.payment_id
    page = owner.get(_url(events_of(shop, pk=back)[0])).content.decode()
    assert 'value="1500.00"' in page  # all of it may go back again


# Any sequence of refunds (a part, all that is left, too much; a form sent again) and
# matches on one payment, against a model of what should be accepted.
refund_step = st.tuples(
    st.just("refund"),
    st.sampled_from((None, 1, 200, 500, 1000, 1300, 1499, 1500, 1501, 3000)),
    st.integers(min_value=0, max_value=3),  # which form (its key); a repeat is a resend
)
steps = st.lists(st.one_of(refund_step, st.just(("match", None, 0))), max_size=8)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=steps)
def test_refunds_never_pass_what_arrived_nor_repeat(
    shop, make_order, post_callback, sequence
) -> None:
    event = _unknown_money(shop, post_callback)
    order = make_order(shop, 1500)
    payment_id = event.payment_id
    assert payment_id is not None
    left, matched = RECEIVED, False
    by_key: dict[str, int] = {}
    for kind, amount, form in sequence:
        if kind == "match":
            expected = not matched and left == RECEIVED
            try:
                match_to_order(shop.id, payment_id, order.pk, staff="owner")
                accepted = True
            except ReconcileError:
                accepted = False
            assert accepted == expected
            matched = matched or accepted
            continue
        key = f"prop:{payment_id}:{form}"
        wanted = left if amount is None else Decimal(amount)
        try:
            made = refund_unmatched(
                shop.id, payment_id, None if amount is None else Decimal(amount),
                key=key, staff="owner", reason="property",
            )  # fmt: skip
        except ReconcileError:
            made = None
        if key in by_key and not matched:
            assert made is not None
            assert made.pk == by_key[key]  # sent again: the same one
        elif matched or wanted <= 0 or wanted > left:
            assert made is None
        else:
            assert made is not None
            assert made.amount == wanted
            by_key[key], left = made.pk, left - wanted
    with tenant_context(shop.id) as tid:
        rows = Refund.objects.filter(tenant_id=tid, payment_id=payment_id)
        gone_back = sum((r.amount for r in rows.exclude(status=RefundStatus.FAILED)), Decimal(0))
        assert gone_back == RECEIVED - left <= RECEIVED
        assert sorted(r.pk for r in rows) == sorted(by_key.values())
        assert PaymentRequest.objects.get(pk=payment_id).order_id == (order.pk if matched else None)


@pytest.mark.django_db(transaction=True)
def test_two_owners_refunding_all_at_once_refund_it_once(shop, post_callback) -> None:
    event = _unknown_money(shop, post_callback)
    payment_id = event.payment_id
    assert payment_id is not None
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def click(key: str) -> None:
        start.wait()
        try:
            refund_unmatched(shop.id, payment_id, None, key=key, staff="owner", reason="twice")
            outcomes.append("refunded")
        except ReconcileError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(k,)) for k in ("tab-1", "tab-2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refunded", "refused"]
    assert [r.amount for r in _refunds(shop, event)] == [RECEIVED]
