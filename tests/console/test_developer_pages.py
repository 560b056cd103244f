"""Developer pages are closed by URL to a shop's staff, not just missing from their menu:
owners and agents get 404 on every one of them (list, add, a row of their own shop);
platform operators open them. The shop list sends an owner to their own settings."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from payments.inbox import store_event
from payments.models import PaymentEvent
from tenants.context import tenant_context
from tenants.models import Tenant
from tests.console.conftest import login
from tulia.console.site import DEVELOPER_LABELS

pytestmark = pytest.mark.django_db


def _url(label: str, view: str, *args: object) -> str:
    model = apps.get_model(label)
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def _own_rows(tenant: Tenant) -> list[str]:
    """Change pages of rows that belong to the staff member's own shop."""
    event = store_event(tenant.id, PaymentEvent.Kind.C2B_CONFIRMATION, "{}", reference="DEV1")
    with tenant_context(tenant.id):
        assert PaymentEvent.objects.filter(pk=event.pk).exists()
    return [
        _url("payments.PaymentEvent", "change", event.pk),
        _url("payments.PaymentEvent", "history", event.pk),
    ]


def _developer_urls(tenant: Tenant) -> list[str]:
    lists = [_url(label, "changelist") for label in sorted(DEVELOPER_LABELS)]
    return [*lists, *_own_rows(tenant)]


@pytest.mark.parametrize("role", ["owner", "agent"])
def test_shop_staff_get_not_found_on_every_developer_page(tenant, stranger, role) -> None:
    client = login(tenant, f"dev_{role}", role)
    answers = {url: client.get(url).status_code for url in _developer_urls(tenant)}
    assert answers == dict.fromkeys(answers, 404)


def test_shop_staff_cannot_post_to_a_developer_page(tenant, stranger) -> None:
    url = _own_rows(tenant)[0]
    response = login(tenant, "dev_poster").post(url, {"note": "changed"})
    assert response.status_code == 404


def test_operators_open_every_developer_page(tenant, stranger, admin_client: Client) -> None:
    answers = {url: admin_client.get(url).status_code for url in _developer_urls(tenant)}
    assert answers == dict.fromkeys(answers, 200)


def test_the_shop_list_sends_an_owner_to_their_settings(tenant, stranger) -> None:
    response = login(tenant, "dev_list").get(_url("tenants.Tenant", "changelist"))
    assert response.status_code == 302
    assert response["Location"] == _url("tenants.Tenant", "change", tenant.pk)


def test_operators_see_the_shop_list(tenant, stranger, admin_client: Client) -> None:
    page = admin_client.get(_url("tenants.Tenant", "changelist")).content.decode()
    assert "Kicks Nairobi" in page
    assert "Mama Mboga" in page
