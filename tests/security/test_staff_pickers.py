"""Staff pickers in admin neither show nor bind another shop's logins (issue 15)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tenants.context import tenant_context
from tenants.models import Tenant, TenantMembership
from tenants.services import add_staff_member
from tulia.handoff.models import AgentPresence

pytestmark = pytest.mark.django_db
PASSWORD = "x-Picker-Pass-42"
NEW_PASSWORD = "Fresh-Staff-Pass-77"


@pytest.fixture
def owner(tenant: Tenant, stranger: Tenant) -> Client:
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    add_staff_member(tenant.id, username="agent_a", password=PASSWORD, role="agent")
    add_staff_member(stranger.id, username="owner_b", password=PASSWORD, role="owner")
    get_user_model().objects.create_user(username="loner", password=PASSWORD)
    client = Client()
    assert client.login(username="owner_a", password=PASSWORD)
    return client


def _user(username: str):
    return get_user_model().objects.get(username=username)


def test_presence_picker_lists_only_own_staff(owner) -> None:
    page = owner.get(reverse("admin:handoff_agentpresence_add")).content.decode()
    assert "agent_a" in page
    assert "owner_b" not in page
    assert "loner" not in page


def test_presence_cannot_bind_another_shops_staff(owner, stranger) -> None:
    response = owner.post(
        reverse("admin:handoff_agentpresence_add"),
        {"user": _user("owner_b").pk, "status": "online"},
    )
    assert response.status_code == 200  # the form again, with its error
    assert "Select a valid choice" in response.content.decode()
    assert not AgentPresence.objects.filter(user=_user("owner_b")).exists()


def test_membership_form_has_no_user_list(owner) -> None:
    page = owner.get(reverse("admin:tenants_tenantmembership_add")).content.decode()
    assert "owner_b" not in page
    assert "loner" not in page
    assert 'name="login"' in page


def _invite(owner: Client, login: str, role: str = "agent"):
    return owner.post(
        reverse("admin:tenants_tenantmembership_add"),
        {"login": login, "password": NEW_PASSWORD, "role": role},
    )


def test_owner_invites_a_new_login_into_their_shop(owner, tenant) -> None:
    response = _invite(owner, "wanjiku@example.com")
    assert response.status_code == 302
    user = _user("wanjiku@example.com")
    assert user.is_staff
    assert user.check_password(NEW_PASSWORD)
    with tenant_context(tenant.id):
        assert TenantMembership.objects.get(user=user).role == "agent"


def test_owner_names_new_staff_as_customers_will_read_it(owner, tenant) -> None:
    response = owner.post(
        reverse("admin:tenants_tenantmembership_add"),
        {
            "login": "mboga_agent",
            "password": NEW_PASSWORD,
            "role": "agent",
            "display_name": "Achieng",
        },
    )
    assert response.status_code == 302
    with tenant_context(tenant.id):
        assert TenantMembership.objects.get(user=_user("mboga_agent")).display_name == "Achieng"


@pytest.mark.parametrize(
    ("login", "error"),
    [
        ("owner_b", "already in use by another account"),
        ("OWNER_B", "already in use by another account"),
        ("loner", "already in use by another account"),
        ("agent_a", "already staff of your shop"),
    ],
)
def test_existing_logins_are_never_bound(owner, tenant, stranger, login, error) -> None:
    response = _invite(owner, login)
    assert response.status_code == 200
    assert error in response.content.decode()
    with tenant_context(stranger.id):
        assert TenantMembership.objects.filter(user=_user("owner_b")).exists()
    with tenant_context(tenant.id):
        assert not TenantMembership.objects.filter(user=_user("loner")).exists()


def test_another_shops_number_is_a_form_error_not_a_500(owner) -> None:
    response = owner.post(
        reverse("admin:tenants_whatsappsender_add"),
        {
            "phone_e164": "+254711000002",  # the stranger's sender
            "twilio_account_sid": "AC" + "c" * 32,
            "twilio_auth_token": "token-c-123456789",
            "is_active": "on",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert "already in use" in response.content.decode()
