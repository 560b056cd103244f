"""Shop settings in words: hours by day and time, keywords one per line, switches;
stored as the typed configuration the bot reads."""

from __future__ import annotations

from datetime import time

import pytest
from django.urls import reverse

from tenants.models import Tenant
from tests.console.conftest import login

pytestmark = pytest.mark.django_db


def _settings_url(tenant: Tenant) -> str:
    return reverse("admin:tenants_tenant_change", args=[tenant.pk])


def _posted(client, tenant: Tenant, **changes):
    page = client.get(_settings_url(tenant))
    form = page.context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value in (None, False):
            continue
        if isinstance(value, time):
            value = value.strftime("%H:%M")
        data[name] = value
    data.update(changes)
    for name, value in list(data.items()):
        if value is None:
            del data[name]
    return client.post(_settings_url(tenant), data)


def test_the_page_has_no_json_and_no_environment_names(tenant, stranger) -> None:
    page = login(tenant, "owner_s1").get(_settings_url(tenant)).content.decode()
    assert 'type="time"' in page
    assert "Monday" in page
    assert "M-Pesa STK Push" in page
    assert "{" not in page.split('id="content-main"')[1].split("</form>")[0].replace("{%", "")
    assert "TULIA_" not in page


def test_owner_sets_monday_hours_and_keywords(tenant, stranger) -> None:
    client = login(tenant, "owner_s2")
    response = _posted(
        client,
        tenant,
        mon_open="on",
        mon_opens="08:30",
        mon_closes="17:00",
        keyword_triggers="mtu\nagent\nnataka kuongea na mtu",
        opt_out_keywords="STOP\nacha",
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    tenant.refresh_from_db()
    monday = tenant.handoff_settings.business_hours.mon
    assert [(w.opens, w.closes) for w in monday] == [(time(8, 30), time(17))]
    assert tenant.handoff_settings.keyword_triggers == ["mtu", "agent", "nataka kuongea na mtu"]
    assert tenant.compliance_settings.opt_out_keywords == ["stop", "acha"]


def test_closing_before_opening_is_refused_on_that_day(tenant, stranger) -> None:
    response = _posted(
        login(tenant, "owner_s3"), tenant, tue_open="on", tue_opens="18:00", tue_closes="09:00"
    )
    assert response.status_code == 200
    assert "tue_closes" in response.context["adminform"].form.errors
    tenant.refresh_from_db()
    assert tenant.handoff_settings.business_hours.tue == []


def test_an_agent_cannot_open_settings(tenant, stranger) -> None:
    response = login(tenant, "agent_s", "agent").get(_settings_url(tenant))
    assert response.status_code == 403


def test_another_shop_cannot_open_these_settings(tenant, stranger) -> None:
    response = login(stranger, "owner_s4").get(_settings_url(tenant))
    assert response.status_code == 302  # "does not exist", back to the home page
