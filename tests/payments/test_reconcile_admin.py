"""Resolving the reconciliation queue in admin: suggested orders, match (once), ignore
with a reason, and the M-Pesa statement upload confirming held payments in bulk."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from payments.accounts import configure_mpesa
from payments.models import PaymentEvent, PaymentStatus
from tenants.context import tenant_context
from tenants.services import add_staff_member
from tests.payments.conftest import FIXTURE_REFERENCE, events_of, mpesa_fixture, order_of

pytestmark = pytest.mark.django_db
PASSWORD = "x-Reconcile-42"
QUEUE = "admin:payments_paymenttoreconcile_changelist"
STATEMENT = (
    "Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,"
    "Withdrawn,Balance\r\n"
    "TKN2L5Y7QA,2026-11-22 09:15:02,2026-11-22 09:15:02,Pay Bill from 2547***678,"
    "Completed,1500.00,,98450.00\r\n"
)


def _login(tenant, username: str, role: str = "owner") -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


@pytest.fixture
def unknown_money(shop, post_callback):
    """KES 1,500 paid with a reference that matches no order."""
    body = mpesa_fixture("c2b_confirmation_unknown_reference.json")
    post_callback(shop, "c2b_confirmation", body)
    [event] = events_of(shop, kind="c2b_confirmation")
    return event


def _resolve_url(event: PaymentEvent) -> str:
    return reverse("admin:payments_paymenttoreconcile_resolve", args=[event.pk])


def test_the_resolve_page_suggests_the_order_with_the_same_amount(
    shop, other_shop, make_order, unknown_money
) -> None:
    same = make_order(shop, 1500, ref="KIC-7H2Q")
    make_order(shop, 2000, ref="KIC-9ZZZ")
    make_order(other_shop, 1500, ref="MAM-1500")
    page = _login(shop, "owner_r1").get(_resolve_url(unknown_money)).content.decode()
    assert same.reference in page
    assert "KIC-9ZZZ" not in page
    assert "MAM-1500" not in page
    assert "same amount" in page


def test_match_pays_the_order_once(shop, make_order, unknown_money) -> None:
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    client = _login(shop, "owner_r2")
    post = {"decision": "match", "order": order.pk}
    assert client.post(_resolve_url(unknown_money), post).status_code == 302
    assert order_of(shop, order.pk).status == "paid"
    again = make_order(shop, 1500, ref="KIC-AGAIN")
    client.post(_resolve_url(unknown_money), {"decision": "match", "order": again.pk})
    assert order_of(shop, again.pk).status == "draft"  # the money paid one order only
    staff = events_of(shop, kind="staff_confirmation")
    assert [e.note for e in staff] == [f"matched to order {order.reference} by owner_r2"]
    assert unknown_money.pk not in _queue_ids(client)


def _queue_ids(client: Client) -> list[int]:
    return [obj.pk for obj in client.get(reverse(QUEUE)).context["cl"].result_list]


def test_a_different_amount_is_refused(shop, make_order, unknown_money) -> None:
    order = make_order(shop, 1400)
    client = _login(shop, "owner_r3")
    response = client.post(
        _resolve_url(unknown_money), {"decision": "match", "order": order.pk}, follow=True
    )
    assert "Amounts differ" in response.content.decode()  # admin capitalises messages
    assert order_of(shop, order.pk).status == "draft"


def test_ignore_needs_a_reason_and_keeps_it(shop, unknown_money) -> None:
    client = _login(shop, "owner_r4")
    client.post(_resolve_url(unknown_money), {"decision": "ignore", "reason": ""})
    assert unknown_money.pk in _queue_ids(client)
    client.post(_resolve_url(unknown_money), {"decision": "ignore", "reason": "test payment"})
    assert unknown_money.pk not in _queue_ids(client)
    [event] = events_of(shop, pk=unknown_money.pk)
    assert event.note == "ignored by owner_r4: test payment"


def test_an_agent_cannot_match_or_ignore(shop, make_order, unknown_money) -> None:
    order = make_order(shop, 1500)
    client = _login(shop, "agent_r", "agent")
    post = {"decision": "match", "order": order.pk}
    assert client.post(_resolve_url(unknown_money), post).status_code == 403
    ignored = {"decision": "ignore", "reason": "x"}
    assert client.post(_resolve_url(unknown_money), ignored).status_code == 403
    assert order_of(shop, order.pk).status == "draft"


def test_another_shop_cannot_open_the_item(shop, other_shop, unknown_money) -> None:
    response = _login(other_shop, "owner_o").get(_resolve_url(unknown_money))
    assert response.status_code == 404


def _upload(client: Client, text: str):
    upload = SimpleUploadedFile("statement.csv", text.encode(), content_type="text/csv")
    url = reverse("admin:payments_paymenttoreconcile_statement")
    return client.post(url, {"statement": upload})


def test_statement_upload_confirms_held_payments_once(shop, make_order, post_callback) -> None:
    configure_mpesa(shop.id, initiator_name="")
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    client = _login(shop, "owner_r5")
    first = _upload(client, STATEMENT)
    assert first.context["result"].confirmed == ["TKN2L5Y7QA"]
    assert order_of(shop, order.pk).status == "paid"
    second = _upload(client, STATEMENT)
    assert second.context["result"].confirmed == []
    assert len(events_of(shop, kind="staff_confirmation")) == 1


def test_statement_with_another_amount_confirms_nothing(shop, make_order, post_callback) -> None:
    configure_mpesa(shop.id, initiator_name="")
    order = make_order(shop, 1500, ref=FIXTURE_REFERENCE)
    post_callback(shop, "c2b_confirmation", mpesa_fixture("c2b_confirmation.json"))
    result = _upload(_login(shop, "owner_r6"), STATEMENT.replace(",1500.00,", ",150.00,"))
    assert result.context["result"].amount_differs == ["TKN2L5Y7QA"]
    assert order_of(shop, order.pk).status == "draft"


def test_an_unreadable_file_is_refused_with_words(shop) -> None:
    response = _upload(_login(shop, "owner_r7"), "name,phone\nx,y\n")
    assert "Receipt No." in response.content.decode()


def test_payment_status_after_match_is_paid(shop, make_order, unknown_money) -> None:
    order = make_order(shop, 1500)
    _login(shop, "owner_r8").post(
        _resolve_url(unknown_money), {"decision": "match", "order": order.pk}
    )
    assert order_of(shop, order.pk).payment_reference == "TKN2L5Y7QA"
    with tenant_context(shop.id):
        payment = PaymentEvent.objects.get(pk=unknown_money.pk).payment
        assert payment is not None
        assert payment.status == PaymentStatus.PAID
