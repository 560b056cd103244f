"""Demo seeding points shops at the emulators, idempotently, never over a real account."""

from __future__ import annotations

import pytest

from payments.accounts import configure_mpesa, mpesa_account, pesapal_account
from payments.demo import DARAJA_URL, PESAPAL_URL, seed_payment_accounts
from payments.errors import NotConfigured
from tenants.services import update_tenant

pytestmark = pytest.mark.django_db


def test_seeding_configures_the_enabled_methods_and_is_idempotent(tenant, stranger) -> None:
    update_tenant(tenant, payment_methods=["mpesa_stk", "pesapal_card"])
    seed_payment_accounts([tenant, stranger])
    seed_payment_accounts([tenant, stranger])
    assert mpesa_account(tenant.id).base_url == DARAJA_URL
    assert pesapal_account(tenant.id).base_url == PESAPAL_URL
    with pytest.raises(NotConfigured):
        mpesa_account(stranger.id)  # the stranger enabled no payment method


def test_seeding_never_overwrites_a_real_account(tenant) -> None:
    configure_mpesa(
        tenant.id,
        environment="production",
        shortcode="888880",
        consumer_key="live-key",
        consumer_secret="live-secret",
        passkey="live-passkey",
    )
    seed_payment_accounts([tenant])
    account = mpesa_account(tenant.id)
    assert (account.base_url, account.shortcode) == ("", "888880")
