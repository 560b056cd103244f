"""Shop settings in words: hours by day and time, keywords one per line, switches;
stored as the typed configuration the bot reads."""

from __future__ import annotations

from datetime import time
from typing import Any

import pytest
from django.urls import reverse

from tenants.models import Tenant
from tests.console.conftest import login
from tests.console.page_form import browser_form

pytestmark = pytest.mark.django_db


def _settings_url(tenant: Tenant) -> str:
    return reverse("admin:tenants_tenant_change", args=[tenant.pk])


def _page_form(client, tenant: Tenant) -> dict[str, list[str]]:
    html = client.get(_settings_url(tenant)).content.decode()
    return browser_form(html, "tenant_form")


def _posted(client, tenant: Tenant, **changes):
    data: dict[str, Any] = dict(_page_form(client, tenant))
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
        mon_hours_opens="08:30",
        mon_hours_closes="17:00",
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
        login(tenant, "owner_s3"),
        tenant,
        tue_open="on",
        tue_hours_opens="18:00",
        tue_hours_closes="09:00",
    )
    assert response.status_code == 200
    assert "tue_hours" in response.context["adminform"].form.errors
    tenant.refresh_from_db()
    assert tenant.handoff_settings.business_hours.tue == []


SPLIT = {"mon": [{"opens": "08:00", "closes": "12:00"}, {"opens": "14:00", "closes": "18:00"}]}


def _with_split_hours(tenant: Tenant) -> None:
    tenant.handoff = {**tenant.handoff, "business_hours": SPLIT}
    tenant.save(update_fields=["handoff"])


def _monday(tenant: Tenant) -> list[tuple[time, time]]:
    tenant.refresh_from_db()
    return [(w.opens, w.closes) for w in tenant.handoff_settings.business_hours.mon]


def test_split_hours_survive_saving_the_page_unchanged(tenant, stranger) -> None:
    _with_split_hours(tenant)
    client = login(tenant, "owner_s5")
    assert _page_form(client, tenant)["mon_hours_opens"] == ["08:00", "14:00"]
    response = _posted(client, tenant)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert _monday(tenant) == [(time(8), time(12)), (time(14), time(18))]


def test_owner_adds_and_removes_a_window(tenant, stranger) -> None:
    client = login(tenant, "owner_s6")
    three = {
        "mon_hours_opens": ["08:00", "14:00", "19:00"],
        "mon_hours_closes": ["12:00", "18:00", "21:00"],
    }
    assert _posted(client, tenant, mon_open="on", **three).status_code == 302
    assert _monday(tenant) == [(time(8), time(12)), (time(14), time(18)), (time(19), time(21))]
    # Clearing a row's two times removes that window.
    cleared = {
        "mon_hours_opens": ["08:00", "", "19:00"],
        "mon_hours_closes": ["12:00", "", "21:00"],
    }
    assert _posted(client, tenant, **cleared).status_code == 302
    assert _monday(tenant) == [(time(8), time(12)), (time(19), time(21))]


@pytest.mark.parametrize(
    ("opens", "closes"),
    [(["08:00", "11:00"], ["12:00", "18:00"]), (["08:00", "14:00"], ["12:00", ""])],
    ids=["overlapping", "half-filled"],
)
def test_a_bad_second_window_is_refused_and_nothing_is_lost(
    tenant, stranger, opens, closes
) -> None:
    _with_split_hours(tenant)
    response = _posted(
        login(tenant, "owner_s7"), tenant, mon_hours_opens=opens, mon_hours_closes=closes
    )
    assert response.status_code == 200
    assert "mon_hours" in response.context["adminform"].form.errors
    assert _monday(tenant) == [(time(8), time(12)), (time(14), time(18))]


def test_an_agent_cannot_open_settings(tenant, stranger) -> None:
    response = login(tenant, "agent_s", "agent").get(_settings_url(tenant))
    assert response.status_code == 403


def test_another_shop_cannot_open_these_settings(tenant, stranger) -> None:
    response = login(stranger, "owner_s4").get(_settings_url(tenant))
    assert response.status_code == 302  # "does not exist", back to the home page
