"""Admin: owners install, submit and sync templates; everyone sees only their shop's rows."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tenants.accessors import active_senders
from tenants.context import tenant_context
from tenants.services import add_staff_member
from tulia.whatsapp import limits
from tulia.whatsapp.models import MessageTemplate, SenderLimit

pytestmark = pytest.mark.django_db
PASSWORD = "x-Admin-Pass-42"
CHANGELIST = "admin:whatsapp_messagetemplate_changelist"
INSTALL = "admin:whatsapp_messagetemplate_install_starter"


@pytest.fixture
def staff(tenant, stranger) -> None:
    add_staff_member(tenant.id, username="owner_a", password=PASSWORD, role="owner")
    add_staff_member(tenant.id, username="agent_a", password=PASSWORD, role="agent")
    add_staff_member(stranger.id, username="owner_b", password=PASSWORD, role="owner")


def _login(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _templates(tenant) -> list[MessageTemplate]:
    with tenant_context(tenant.id):
        return list(MessageTemplate.objects.order_by("id"))


def test_owner_installs_the_starter_set_from_admin(staff, tenant, stranger, twilio) -> None:
    response = _login("owner_a").post(reverse(INSTALL))
    assert response.status_code == 302
    rows = _templates(tenant)
    assert len(rows) == 16
    assert {row.status for row in rows} == {"pending"}
    assert _templates(stranger) == []


def test_agent_cannot_install_templates(staff, tenant, twilio) -> None:
    assert _login("agent_a").post(reverse(INSTALL)).status_code == 403
    assert _templates(tenant) == []


def test_submit_and_sync_actions_show_the_rejection_reason(staff, tenant, twilio) -> None:
    owner = _login("owner_a")
    owner.post(reverse(INSTALL))
    row = _templates(tenant)[0]
    twilio.reject(row.content_sid, "Variable format is invalid")
    owner.post(reverse(CHANGELIST), {"action": "sync_status", "_selected_action": [str(row.pk)]})
    page = owner.get(reverse(CHANGELIST)).content.decode()
    assert "Variable format is invalid" in page
    assert _templates(tenant)[0].status == "rejected"


def test_stranger_sees_none_of_the_shops_templates(staff, tenant, twilio) -> None:
    _login("owner_a").post(reverse(INSTALL))
    page = _login("owner_b").get(reverse(CHANGELIST)).content.decode()
    assert "kicks_payment_received" not in page
    row = _templates(tenant)[0]
    change = reverse("admin:whatsapp_messagetemplate_change", args=[row.pk])
    assert _login("owner_b").get(change).status_code in (302, 404)


def test_sender_usage_is_shown_in_admin(staff, tenant, stranger) -> None:
    limit = limits.limit_for(tenant.id, active_senders(tenant.id)[0].pk)
    page = _login("owner_a").get(reverse("admin:whatsapp_senderlimit_changelist")).content
    assert "0 of 250 (marketing up to 200)" in page.decode()
    other = _login("owner_b").get(reverse("admin:whatsapp_senderlimit_change", args=[limit.pk]))
    assert other.status_code in (302, 404)
    with tenant_context(stranger.id):
        assert not SenderLimit.objects.exists()


def _add_form(body: str) -> dict[str, str]:
    return {
        "purpose": "", "name": "weekend_sale", "language": "en", "category": "marketing",
        "body": body, "examples": '{"1": "10%"}',
    }  # fmt: skip


def test_owner_creates_a_template_in_admin_for_their_shop_only(staff, tenant, stranger) -> None:
    owner = _login("owner_a")
    add = reverse("admin:whatsapp_messagetemplate_add")
    refused = owner.post(add, _add_form("{{1}} off all weekend"))
    assert "may not start or end with a variable" in refused.content.decode()
    response = owner.post(add, _add_form("This weekend only: {{1}} off. Reply STOP to opt out."))
    assert response.status_code == 302
    (row,) = _templates(tenant)
    assert (row.name, row.status, row.content_sid) == ("weekend_sale", "draft", "")
    assert _templates(stranger) == []
