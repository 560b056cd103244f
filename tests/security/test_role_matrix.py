"""Every admin action, desk operation and desk API call is checked against tenants/roles.py.

The walk below visits every registered ModelAdmin, so an action added later without a
row in the matrix (or allowed to agents by mistake) fails here, not in production.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import reverse

from kb.models import ConversationSummary
from tenants.context import tenant_context
from tenants.models import Tenant, TenantMembership, WhatsAppSender
from tenants.roles import AGENT, MATRIX, OWNER, action_allowed, role_may
from tenants.services import add_staff_member
from tulia.api.keys import issue_key
from tulia.commerce.models import ApiKey
from tulia.handoff import admin_desk
from tulia.handoff.api import _DESK_OPERATION
from tulia.whatsapp.models import MessageTemplate

pytestmark = pytest.mark.django_db
PASSWORD = "x-Role-Pass-42"


@pytest.fixture
def staff(tenant: Tenant) -> dict[str, TenantMembership]:
    users = {}
    for role in (OWNER, AGENT):
        add_staff_member(tenant.id, username=f"{role}_r", password=PASSWORD, role=role)
        with tenant_context(tenant.id):
            users[role] = TenantMembership.objects.select_related("user").get(
                user__username=f"{role}_r"
            )
    return users


def _request_as(membership: TenantMembership) -> Any:
    request = RequestFactory().get("/admin/")
    request.user = membership.user
    request.tenant_membership = membership  # type: ignore[attr-defined]
    return request


def _every_action() -> list[tuple[str, admin.ModelAdmin[Any], str, Any]]:
    superuser = get_user_model()(username="root", is_staff=True, is_superuser=True)
    request = RequestFactory().get("/admin/")
    request.user = superuser
    found = []
    for model, model_admin in admin.site._registry.items():
        for name, entry in model_admin.get_actions(request).items():
            assert entry is not None
            found.append((model._meta.label, model_admin, name, entry[0]))
    return found


def test_the_walk_finds_the_actions_the_issue_names() -> None:
    names = {(label, name) for label, _, name, _ in _every_action()}
    assert ("commerce.ApiKey", "revoke") in names
    assert ("kb.ConversationSummary", "approve") in names
    assert ("payments.PaymentToReconcile", "mark_reviewed") in names
    assert ("catalog_sync.StoreConnection", "start_import") in names
    assert ("catalog_sync.SyncConflict", "resolve") in names


def test_every_admin_action_names_its_row_in_the_matrix() -> None:
    for label, _, name, func in _every_action():
        operation = getattr(func, "role_operation", None)
        guarded_by_django = hasattr(func, "allowed_permissions")
        assert operation in MATRIX or guarded_by_django, f"{label}.{name} has no role check"


def test_an_agent_is_offered_only_what_the_matrix_gives_agents(tenant, staff) -> None:
    request = _request_as(staff[AGENT])
    for label, model_admin, name, func in _every_action():
        offered = name in model_admin.get_actions(request)
        operation = getattr(func, "role_operation", None)
        if operation is not None:
            assert offered == role_may(AGENT, operation), f"{label}.{name}"
        elif offered:  # Django's delete_selected: only with delete permission
            assert model_admin.has_delete_permission(request), f"{label}.{name}"


def test_an_owner_is_offered_every_owner_action(tenant, staff) -> None:
    request = _request_as(staff[OWNER])
    for label, model_admin, name, func in _every_action():
        operation = getattr(func, "role_operation", None)
        if operation is not None:
            assert (name in model_admin.get_actions(request)) == role_may(OWNER, operation), label


def test_an_action_with_no_matrix_row_is_refused_to_staff(staff) -> None:
    def unlisted(*_: object) -> None:
        raise AssertionError("never run")

    for membership in staff.values():
        assert not action_allowed(_request_as(membership), unlisted)


def _client(username: str) -> Client:
    client = Client()
    assert client.login(username=username, password=PASSWORD)
    return client


def _run_action(client: Client, model: str, action: str, pk: int) -> None:
    client.post(reverse(f"admin:{model}_changelist"), {"action": action, "_selected_action": [pk]})


@pytest.mark.parametrize(("username", "revoked"), [("agent_r", False), ("owner_r", True)])
def test_only_an_owner_revokes_api_keys(tenant, staff, username, revoked) -> None:
    key = issue_key(tenant.id, "POS").key
    _run_action(_client(username), "commerce_apikey", "revoke", key.pk)
    with tenant_context(tenant.id):
        assert (ApiKey.objects.get(pk=key.pk).revoked_at is not None) is revoked


@pytest.mark.parametrize(("username", "approved"), [("agent_r", False), ("owner_r", True)])
def test_only_an_owner_approves_kb_summaries(tenant, staff, username, approved) -> None:
    with tenant_context(tenant.id):
        summary = ConversationSummary.objects.create(tenant=tenant, title="Hours", text="9-5")
    _run_action(_client(username), "kb_conversationsummary", "approve", summary.pk)
    with tenant_context(tenant.id):
        assert ConversationSummary.objects.get(pk=summary.pk).approved is approved


@pytest.mark.parametrize(("username", "resolved"), [("agent_r", False), ("owner_r", True)])
def test_only_an_owner_resolves_store_sync_conflicts(tenant, staff, username, resolved) -> None:
    from tulia.catalog_sync.models import StoreConnection, SyncConflict

    with tenant_context(tenant.id):
        store = StoreConnection.objects.create(
            tenant=tenant,
            platform="woocommerce",
            store_url="https://duka.example.co.ke",
            webhook_secret="s",
        )
        conflict = SyncConflict.objects.create(
            tenant=tenant, connection=store, kind="delete_open_orders", external_id="1", detail="x"
        )
    _run_action(_client(username), "catalog_sync_syncconflict", "resolve", conflict.pk)
    with tenant_context(tenant.id):
        assert (SyncConflict.objects.get(pk=conflict.pk).resolved_at is not None) is resolved


@pytest.mark.parametrize(("username", "campaign_moves"), [("agent_r", False), ("owner_r", True)])
def test_only_an_owner_sends_resumes_or_cancels_a_campaign(
    tenant, staff, username, campaign_moves
) -> None:
    from tulia.campaigns.models import Campaign

    with tenant_context(tenant.id) as tid:
        template = MessageTemplate.objects.create(
            tenant_id=tid, name="sale", language="en", category="marketing",
            body="Sale {{1}} on. Reply STOP to opt out.", status="approved", content_sid="HX1",
        )  # fmt: skip
        sender = WhatsAppSender.objects.get(tenant_id=tid)
        drafts = [
            Campaign.objects.create(tenant_id=tid, name=n, template=template, sender=sender)
            for n in ("a", "b")
        ]
        Campaign.objects.filter(pk=drafts[1].pk).update(status="paused")
    client = _client(username)
    _run_action(client, "campaigns_campaign", "cancel", drafts[0].pk)
    _run_action(client, "campaigns_campaign", "resume", drafts[1].pk)
    with tenant_context(tenant.id):
        statuses = [Campaign.objects.get(pk=d.pk).status for d in drafts]
    assert (statuses == ["cancelled", "running"]) is campaign_moves
    assert (statuses == ["draft", "paused"]) is not campaign_moves


def test_an_agent_may_pause_a_campaign(tenant, staff) -> None:
    assert role_may(AGENT, "campaigns.campaign.pause")
    assert not role_may(AGENT, "campaigns.campaign.send")


def test_every_desk_operation_has_a_matrix_row(rf) -> None:
    request = rf.post("/", {"op": "claim"})
    request.user = get_user_model()(pk=1)
    for op in admin_desk.operations(request, None, 1):  # type: ignore[arg-type]
        assert f"handoff.desk.{op}" in MATRIX, op
    for operation in _DESK_OPERATION.values():
        assert operation in MATRIX, operation


def test_unknown_role_may_do_nothing() -> None:
    for operation in MATRIX:
        assert not role_may("visitor", operation)
        assert not role_may(None, operation)
