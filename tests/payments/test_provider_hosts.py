"""SSRF: a shop's provider base URL may only point at the provider (or the operator's list)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from payments.accounts import configure_mpesa, configure_pesapal, mpesa_account
from payments.errors import ProviderError
from payments.hosts import DARAJA_HOSTS, PESAPAL_HOSTS, base_url_problem
from payments.mpesa.stk import initiate_stk_push
from payments.pesapal.checkout import create_checkout
from tenants.services import add_staff_member

pytestmark = pytest.mark.django_db

INTERNAL = (
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.5:6379/",
    "https://sandbox.safaricom.co.ke.evil.example/",
    "https://user:pw@api.safaricom.co.ke/",
    "http://api.safaricom.co.ke/",  # the right host, but the secrets would go in clear
    "https://api.safaricom.co.ke:8443/",
    "file:///etc/passwd",
)


@pytest.mark.parametrize("url", [*DARAJA_HOSTS.values(), "https://api.safaricom.co.ke/"])
def test_daraja_documented_hosts_are_allowed(url: str) -> None:
    assert base_url_problem(url, DARAJA_HOSTS) == ""


@pytest.mark.parametrize("url", PESAPAL_HOSTS.values())
def test_pesapal_documented_hosts_are_allowed(url: str) -> None:
    assert base_url_problem(url, PESAPAL_HOSTS) == ""


@pytest.mark.parametrize("url", INTERNAL)
def test_other_addresses_are_refused(url: str, settings) -> None:
    settings.TULIA_PROVIDER_HOST_ALLOWLIST = []
    assert base_url_problem(url, DARAJA_HOSTS) != ""


def test_the_operator_allowlist_opens_a_host(settings) -> None:
    settings.TULIA_PROVIDER_HOST_ALLOWLIST = ["emulator.internal:8701"]
    assert base_url_problem("http://emulator.internal:8701", DARAJA_HOSTS) == ""
    assert base_url_problem("http://emulator.internal:9999", DARAJA_HOSTS) != ""


def test_saving_a_foreign_host_is_a_validation_error(shop, settings) -> None:
    settings.TULIA_PROVIDER_HOST_ALLOWLIST = []
    with pytest.raises(ValidationError, match="documented hosts"):
        configure_mpesa(shop.id, base_url="http://169.254.169.254/")
    with pytest.raises(ValidationError, match="documented hosts"):
        configure_pesapal(shop.id, base_url="http://169.254.169.254/")


def test_admin_shows_a_form_error_not_a_500(shop) -> None:
    add_staff_member(shop.id, username="owner_ssrf", password="x-Admin-Pass-42", role="owner")
    owner = Client()
    assert owner.login(username="owner_ssrf", password="x-Admin-Pass-42")
    account = mpesa_account(shop.id)
    form = {
        "environment": "sandbox",
        "base_url": "http://169.254.169.254/latest/",
        "kind": "paybill",
        "shortcode": "174379",
        "till_number": "",
        "consumer_key": "ck-kicks",
        "stk_query_after_seconds": 60,
        "stk_give_up_after_seconds": 300,
        "source_ip_check": "log",
    }
    page = reverse("admin:payments_mpesaaccount_change", args=[account.pk])
    response = owner.post(page, form)
    assert response.status_code == 200
    assert "documented hosts" in response.content.decode()
    assert mpesa_account(shop.id).base_url == account.base_url


def test_a_stored_foreign_host_gets_no_request_at_request_time(
    shop, daraja, pesapal, make_order, settings
) -> None:
    """A row written before the check (or an allowlist narrowed since) sends nothing."""
    settings.TULIA_PROVIDER_HOST_ALLOWLIST = []  # the emulators are now foreign hosts
    order = make_order(shop, 1500)
    with pytest.raises(ProviderError, match="documented hosts") as refused:
        initiate_stk_push(shop.id, order.pk, confirmed_amount=Decimal(1500))
    assert refused.value.retryable is False
    with pytest.raises(ProviderError, match="documented hosts"):
        create_checkout(shop.id, make_order(shop, 900).pk, confirmed_amount=Decimal(900))
    assert daraja.tokens_issued == 0
    assert daraja.pushes == {}
    assert pesapal.tokens == set()
