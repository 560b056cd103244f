"""C2B URL registration from admin (issue 18 §4): an owner registers a sandbox
shortcode's URLs with Daraja (the emulator) in one action; agents may not; production
URLs are left to the portal steps the page shows."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from payments.accounts import mpesa_account
from payments.models import MpesaAccount
from payments.routes import current_secret
from tenants.context import tenant_context
from tenants.services import add_staff_member

pytestmark = pytest.mark.django_db
PASSWORD = "x-C2b-Pass-4242"


def _as(tenant, role: str) -> Client:
    add_staff_member(tenant.id, username=f"{role}_c2b", password=PASSWORD, role=role)
    client = Client()
    assert client.login(username=f"{role}_c2b", password=PASSWORD)
    return client


def _register(client: Client, account: MpesaAccount):
    changelist = reverse("admin:payments_mpesaaccount_changelist")
    form = {"action": "register_c2b", "_selected_action": [account.pk]}
    return client.post(changelist, form, follow=True)


def test_owner_registers_the_sandbox_urls_with_their_secret(shop, daraja) -> None:
    account = mpesa_account(shop.id)
    page = _register(_as(shop, "owner"), account).content.decode()
    assert "C2B URLs registered" in page
    with tenant_context(shop.id):
        secret = current_secret(shop.id, "c2b")
    urls = daraja.c2b_urls["174379"]
    assert urls["confirmation"].endswith(f"/cb/{secret}/c2b/confirm/")
    assert urls["validation"].endswith(f"/cb/{secret}/c2b/validate/")
    assert mpesa_account(shop.id).c2b_registered_at is not None


def test_the_account_page_shows_the_production_steps(shop) -> None:
    account = mpesa_account(shop.id)
    page = _as(shop, "owner").get(reverse("admin:payments_mpesaaccount_change", args=[account.pk]))
    text = page.content.decode()
    assert "Register C2B URLs with Daraja" in text
    assert "URL Management" in text


def test_an_agent_cannot_register(shop, daraja) -> None:
    _register(_as(shop, "agent"), mpesa_account(shop.id))
    assert daraja.c2b_urls == {}
    assert mpesa_account(shop.id).c2b_registered_at is None


def test_a_production_account_is_not_registered_from_here(shop, daraja) -> None:
    with tenant_context(shop.id):
        MpesaAccount.objects.update(environment="production")
    page = _register(_as(shop, "owner"), mpesa_account(shop.id)).content.decode()
    assert "registered in the Daraja portal" in page
    assert daraja.c2b_urls == {}
