"""Campaigns through the tenant API and the Django admin, and their figures from the
real webhooks (Twilio's signed status callbacks, a customer's signed reply)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient
from twilio.request_validator import RequestValidator

from tenants.context import tenant_context
from tenants.services import add_staff_member, record_consent
from tests.commerce import factories as f
from tulia.api.keys import issue_key
from tulia.campaigns import control, sending
from tulia.campaigns.models import Campaign, MessagingSettings
from tulia.celery import app as celery_app
from tulia.commerce.checkout import LineRequest, create_order
from tulia.commerce.models import Order
from tulia.whatsapp.emulator import inbound_params, status_params

from .conftest import TOKEN_A, add_customers

pytestmark = pytest.mark.django_db
PASSWORD = "x-Camp-Pass-42"


@pytest.fixture
def inline_tasks() -> Iterator[None]:
    celery_app.conf["task_always_eager"] = True
    try:
        yield
    finally:
        celery_app.conf["task_always_eager"] = False


def _api(tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issue_key(tenant.id, 'crm').plaintext}")
    return client


def _signed(client: Client, name: str, form: dict[str, str]):
    path = reverse(f"whatsapp:{name}")
    url = f"{django_settings.PUBLIC_BASE_URL}{path}"
    signature = RequestValidator(TOKEN_A).compute_signature(url, form)
    return client.post(path, form, headers={"X-Twilio-Signature": signature})


def _sender_id(tenant) -> int:
    from tenants.models import WhatsAppSender

    with tenant_context(tenant.id):
        return WhatsAppSender.objects.get().pk


@pytest.mark.usefixtures("inline_tasks")
def test_campaign_life_through_the_api(
    tenant, stranger, twilio, sale_template, django_capture_on_commit_callbacks
) -> None:
    vips = add_customers(tenant, 3, tags=["vip"])
    add_customers(tenant, 2, start=10)
    api = _api(tenant)
    body = {
        "name": "VIP weekend", "template_id": sale_template.pk, "sender_id": _sender_id(tenant),
        "variables": {"1": "VIP"}, "audience": {"tags": ["vip"]},
    }  # fmt: skip
    created = api.post("/api/v1/campaigns/", body, format="json")
    assert created.status_code == 201, created.content
    campaign_id = created.json()["id"]

    preview = api.get(f"/api/v1/campaigns/{campaign_id}/preview/").json()
    assert preview == {"recipients": 3, "cost_kes": "2.58", "price_kes": "0.8600"}
    ad_hoc = api.post("/api/v1/campaigns/preview/", {"audience": {}}, format="json").json()
    assert ad_hoc["recipients"] == 5
    bad = api.post("/api/v1/campaigns/preview/", {"audience": {"colour": "red"}}, format="json")
    assert bad.status_code == 400

    with django_capture_on_commit_callbacks(execute=True):
        sent = api.post(f"/api/v1/campaigns/{campaign_id}/send/", {}, format="json")
    assert sent.status_code == 200, sent.content
    assert sorted(m.to for m in twilio.sent) == sorted(f"whatsapp:{c.phone_e164}" for c in vips)
    assert api.get(f"/api/v1/campaigns/{campaign_id}/").json()["status"] == "done"
    changed = api.patch(f"/api/v1/campaigns/{campaign_id}/", {"name": "x"}, format="json")
    assert changed.status_code == 409
    assert changed.json()["code"] == "campaign_not_draft"
    paused = api.post(f"/api/v1/campaigns/{campaign_id}/pause/")
    assert (paused.status_code, paused.json()["code"]) == (409, "campaign_state")
    assert paused.json()["request_id"]

    # Twilio reports delivery and reads; one customer answers, one opts out, one buys.
    web = Client()
    first, second, third = twilio.sent
    for message, status in ((first, "read"), (second, "delivered"), (third, "undelivered")):
        assert _signed(web, "status", status_params(message, status)).status_code == 204
    buyer = next(c for c in vips if f"whatsapp:{c.phone_e164}" == first.to)
    reply = inbound_params(
        first.account_sid, "+254711000001", buyer.phone_e164, "Which sizes do you have?"
    )
    assert _signed(web, "inbound", reply).status_code == 200
    quitter = next(c for c in vips if f"whatsapp:{c.phone_e164}" == second.to)
    record_consent(tenant.id, quitter.pk, kind="marketing", action="withdrawn", source="whatsapp")
    item = f.item(tenant, "Air Runner", 4500)
    order = create_order(tenant.id, buyer.pk, [LineRequest(item.pk, 1)])
    with tenant_context(tenant.id):
        Order.objects.filter(pk=order.pk).update(status="paid")

    figures = api.get(f"/api/v1/campaigns/{campaign_id}/stats/").json()
    assert figures["sent"] == 3
    assert (figures["delivered"], figures["read"], figures["failed"]) == (2, 1, 1)
    assert (figures["replies"], figures["opt_outs"]) == (1, 1)
    assert (figures["orders"], figures["revenue_kes"]) == (1, "4500.00")
    kinds = [e["kind"] for e in api.get(f"/api/v1/campaigns/{campaign_id}/events/").json()]
    assert {"scheduled", "done"} <= set(kinds)

    theirs = _api(stranger)
    assert theirs.get(f"/api/v1/campaigns/{campaign_id}/").status_code == 404
    assert theirs.post(f"/api/v1/campaigns/{campaign_id}/cancel/").status_code == 404
    assert theirs.get("/api/v1/campaigns/").json() == []


def test_api_refuses_another_shops_template_and_utility_templates(
    tenant, stranger, twilio, sale_template
) -> None:
    body = {
        "name": "Theirs", "template_id": sale_template.pk, "sender_id": _sender_id(tenant),
        "variables": {"1": "x"},
    }  # fmt: skip
    assert _api(stranger).post("/api/v1/campaigns/", body, format="json").status_code == 400
    with tenant_context(tenant.id):
        sale_template.category = "utility"
        sale_template.save()
    assert _api(tenant).post("/api/v1/campaigns/", body, format="json").status_code == 400


def test_scheduled_send_waits_for_its_shop_time(tenant, twilio, sale_template) -> None:
    api = _api(tenant)
    body = {
        "name": "Later", "template_id": sale_template.pk, "sender_id": _sender_id(tenant),
        "variables": {"1": "x"},
    }  # fmt: skip
    campaign_id = api.post("/api/v1/campaigns/", body, format="json").json()["id"]
    # A time without an offset is the shop's (Nairobi, UTC+3).
    sent = api.post(
        f"/api/v1/campaigns/{campaign_id}/send/",
        {"scheduled_at": "2031-03-03T09:00:00"},
        format="json",
    )
    assert sent.status_code == 200
    assert sent.json()["status"] == "scheduled"
    assert sent.json()["scheduled_at"] == "2031-03-03T09:00:00+03:00"
    assert api.post(f"/api/v1/campaigns/{campaign_id}/pause/").json()["status"] == "paused"
    assert api.post(f"/api/v1/campaigns/{campaign_id}/cancel/").json()["status"] == "cancelled"
    assert twilio.sent == []


def test_messaging_settings_switch_nudges_on_through_the_api(tenant, stranger) -> None:
    api = _api(tenant)
    assert api.get("/api/v1/messaging/settings/").json()["abandoned_cart"] is False
    changed = api.patch(
        "/api/v1/messaging/settings/",
        {"abandoned_cart": True, "quiet_from": "22:00"},
        format="json",
    )
    assert changed.status_code == 200
    assert changed.json()["abandoned_cart"] is True
    assert api.patch("/api/v1/messaging/settings/", {"nudge_cap_days": 0}).status_code == 400
    with tenant_context(stranger.id):
        assert not MessagingSettings.objects.filter(abandoned_cart=True).exists()


@pytest.mark.usefixtures("inline_tasks")
def test_owner_previews_and_sends_from_the_admin_agent_cannot(
    tenant, twilio, make_campaign, django_capture_on_commit_callbacks
) -> None:
    add_customers(tenant, 2)
    campaign = make_campaign()
    for role in ("owner", "agent"):
        add_staff_member(tenant.id, username=f"{role}_c", password=PASSWORD, role=role)
    agent, owner = Client(), Client()
    assert agent.login(username="agent_c", password=PASSWORD)
    assert owner.login(username="owner_c", password=PASSWORD)
    page = owner.get(reverse("admin:campaigns_campaign_change", args=[campaign.pk]))
    assert "2 opted-in customers; about KES 1.72" in page.content.decode()

    changelist = reverse("admin:campaigns_campaign_changelist")
    form = {"action": "send", "_selected_action": [campaign.pk]}
    agent.post(changelist, form)
    assert twilio.sent == []
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(changelist, form)
    assert len(twilio.sent) == 2
    with tenant_context(tenant.id):
        assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.DONE
    page = owner.get(reverse("admin:campaigns_campaign_change", args=[campaign.pk]))
    assert "<th>Sent</th><td>2</td>" in page.content.decode()


def test_owner_sees_a_paused_campaign_on_the_console_home(tenant, twilio, make_campaign) -> None:
    tired = add_customers(tenant, 6)
    twilio.marketing_limited |= {f"whatsapp:{c.phone_e164}" for c in tired}
    campaign = make_campaign(name="Mid-month sale")
    control.schedule(tenant.id, campaign.pk)
    control.start_due(tenant.id, campaign.pk)
    sending.run(tenant.id, campaign.pk)
    add_staff_member(tenant.id, username="owner_n", password=PASSWORD, role="owner")
    owner = Client()
    assert owner.login(username="owner_n", password=PASSWORD)
    home = owner.get(reverse("admin:index")).content.decode()
    assert "Mid-month sale" in home
    assert "Paused: WhatsApp refused 5 of 5 messages" in home
    assert reverse("admin:campaigns_campaign_change", args=[campaign.pk]) in home
