"""Admin: secrets never rendered, payments read-only, the reconciliation queue per tenant."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from payments.accounts import mpesa_account
from payments.models import MpesaAccount, PaymentEvent, PaymentRequest, PaymentToReconcile
from tenants.services import add_staff_member
from tests.payments.conftest import mpesa_fixture

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


def login(tenant, username: str) -> Client:
    add_staff_member(tenant.id, username=username, password=PASSWORD, role="owner")
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def url(model, action: str = "changelist", *args) -> str:
    return reverse(f"admin:payments_{model._meta.model_name}_{action}", args=args)


def test_secrets_are_masked_in_list_and_never_rendered_in_the_form(shop) -> None:
    owner = login(shop, "owner_pay")
    listing = owner.get(url(MpesaAccount)).content.decode()
    form = owner.get(url(MpesaAccount, "change", mpesa_account(shop.id).pk)).content.decode()
    for page in (listing, form):
        assert "cs-kicks-secret" not in page
        assert "bfb279f9aa9bdbcf" not in page
    assert "••••" in listing


def test_blank_secret_keeps_the_stored_one(shop) -> None:
    owner = login(shop, "owner_pay")
    account = mpesa_account(shop.id)
    form = {
        "environment": "sandbox",
        "base_url": account.base_url,
        "kind": "paybill",
        "shortcode": "174379",
        "till_number": "",
        "consumer_key": "ck-kicks",
        "consumer_secret": "",
        "passkey": "",
        "stk_query_after_seconds": 60,
        "stk_give_up_after_seconds": 300,
        "source_ip_check": "log",
    }
    response = owner.post(url(MpesaAccount, "change", account.pk), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    saved = mpesa_account(shop.id)
    assert saved.consumer_secret.reveal() == "cs-kicks-secret"
    assert (saved.stk_query_after_seconds, saved.source_ip_check) == (60, "log")


def test_reconciliation_queue_shows_only_own_flagged_events(
    shop, other_shop, post_callback
) -> None:
    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_success.json", "ws_CO_MINE"))
    post_callback(
        other_shop, "stk_callback", mpesa_fixture("stk_callback_success.json", "ws_CO_THEIRS")
    )
    page = login(shop, "owner_pay").get(url(PaymentToReconcile)).content.decode()
    assert "ws_CO_MINE" in page
    assert "ws_CO_THEIRS" not in page


def test_marking_reviewed_empties_the_queue(shop, post_callback) -> None:
    post_callback(shop, "stk_callback", mpesa_fixture("stk_callback_success.json", "ws_CO_MINE"))
    owner = login(shop, "owner_pay")
    from tenants.context import tenant_context

    with tenant_context(shop.id):
        event = PaymentEvent.objects.get(reference="ws_CO_MINE")
    owner.post(
        url(PaymentToReconcile),
        {"action": "mark_reviewed", "_selected_action": [event.pk]},
    )
    assert "ws_CO_MINE" not in owner.get(url(PaymentToReconcile)).content.decode()


def test_payments_cannot_be_edited_or_added(shop) -> None:
    owner = login(shop, "owner_pay")
    assert owner.get(url(PaymentRequest, "add")).status_code == 403
    # Raw provider events are an operator's page: a shop's staff don't learn it exists.
    assert owner.get(url(PaymentEvent, "add")).status_code == 404
