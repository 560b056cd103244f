"""Django admin: a tenant's staff see and change only their own tenant's rows."""

from __future__ import annotations

import pytest
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.models import ConsentEvent, Customer, Tenant, TenantMembership, WhatsAppSender
from tenants.services import add_staff_member, get_or_create_customer, record_consent

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"


@pytest.fixture
def shops(tenant: Tenant, stranger: Tenant) -> dict[str, object]:
    mine, _ = get_or_create_customer(tenant.id, "0712111111", display_name="Wanjiru Mine")
    theirs, _ = get_or_create_customer(stranger.id, "0733222222", display_name="Otieno Theirs")
    record_consent(stranger.id, theirs.id, kind="marketing", action="granted", source="admin")
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    add_staff_member(tenant.id, username="agent_a", password=PASSWORD, role="agent")
    add_staff_member(stranger.id, username="owner_b", password=PASSWORD, role="owner")
    return {"mine": mine, "theirs": theirs}


def _login(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _changelist(model: type[Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.mark.parametrize(
    "model", [Customer, WhatsAppSender, TenantMembership, ConsentEvent, Tenant]
)
def test_changelist_shows_nothing_of_the_stranger(shops, stranger, model) -> None:
    page = _login("owner_a").get(_changelist(model)).content.decode()
    for needle in ("Otieno Theirs", "+254733222222", "+254711000002", "owner_b", "Mama Mboga"):
        assert needle not in page


def test_changelist_shows_own_rows(shops) -> None:
    page = _login("owner_a").get(_changelist(Customer)).content.decode()
    assert "Wanjiru Mine" in page


def test_change_page_of_strangers_row_is_not_found(shops) -> None:
    theirs = shops["theirs"]
    url = reverse("admin:tenants_customer_change", args=[theirs.pk])
    response = _login("owner_a").get(url, follow=True)
    assert "Otieno Theirs" not in response.content.decode()
    assert response.redirect_chain  # admin redirects "doesn't exist" to the index


def test_search_does_not_reach_the_stranger(shops) -> None:
    page = _login("owner_a").get(_changelist(Customer), {"q": "Otieno"}).content.decode()
    assert "Otieno Theirs" not in page
    assert "0 customers" in page


def test_foreign_key_choices_hold_only_own_rows(shops) -> None:
    page = _login("owner_a").get(reverse("admin:tenants_customer_add")).content.decode()
    assert "Mama Mboga" not in page
    assert "Kicks Nairobi" in page


def test_delete_action_cannot_touch_strangers_rows(shops, stranger) -> None:
    theirs = shops["theirs"]
    _login("owner_a").post(
        _changelist(Customer),
        {"action": "delete_selected", "_selected_action": [theirs.pk], "post": "yes"},
    )
    with tenant_context(stranger.id):
        assert Customer.objects.filter(pk=theirs.pk).exists()


def test_staff_creating_a_sender_gets_their_own_tenant(shops, tenant, stranger) -> None:
    client = _login("owner_a")
    response = client.post(
        reverse("admin:tenants_whatsappsender_add"),
        {
            "tenant": str(stranger.id),  # a forged choice is ignored: the field is disabled
            "phone_e164": "0711000009",
            "label": "Second line",
            "twilio_account_sid": "AC" + "c" * 32,
            "twilio_auth_token": "brand-new-token-123",
            "is_active": "on",
        },
    )
    assert response.status_code == 302
    with tenant_context(tenant.id):
        sender = WhatsAppSender.objects.get(phone_e164="+254711000009")
    assert sender.tenant_id == tenant.id


def test_agent_can_view_but_not_change_senders(shops) -> None:
    client = _login("agent_a")
    assert client.get(_changelist(WhatsAppSender)).status_code == 200
    assert client.get(reverse("admin:tenants_whatsappsender_add")).status_code == 403


def test_staff_without_membership_sees_no_tenant_data(shops, django_user_model) -> None:
    django_user_model.objects.create_user("loner", password=PASSWORD, is_staff=True)
    client = _login("loner")
    assert client.get(_changelist(Customer)).status_code == 403


def test_superuser_sees_every_tenant(shops, admin_client) -> None:
    page = admin_client.get(_changelist(Customer)).content.decode()
    assert "Wanjiru Mine" in page
    assert "Otieno Theirs" in page


def test_admin_requires_login(shops) -> None:
    response = Client().get(_changelist(Customer))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_auth_token_is_masked_in_admin(shops, tenant) -> None:
    client = _login("owner_a")
    with tenant_context(tenant.id):
        sender = WhatsAppSender.objects.get(tenant_id=tenant.id)
    listing = client.get(_changelist(WhatsAppSender)).content.decode()
    change = client.get(reverse("admin:tenants_whatsappsender_change", args=[sender.pk]))
    assert "token-a-123456789" not in listing
    assert "token-a-123456789" not in change.content.decode()
    assert "••••6789" in listing
