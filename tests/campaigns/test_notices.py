"""The owner's campaign notices on the console home, in the reader's language."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from tenants.context import tenant_context
from tulia.campaigns.models import CampaignEvent
from tulia.campaigns.sending import tell

pytestmark = pytest.mark.django_db


def _home_notices(tenant_id, language: str) -> str:
    page = Template("{% load campaign_notices %}{% campaign_notices tenant %}")
    with translation.override(language):
        return page.render(Context({"tenant": tenant_id}))


def _tell_all(tenant_id, campaign_id: int) -> None:
    tell(tenant_id, campaign_id, "spread", queued=900, per_day=200, reserve=20, days=5)
    tell(tenant_id, campaign_id, "tier_wait", when="2026-11-28T08:00")
    tell(tenant_id, campaign_id, "recovered", found=4, resent=2, lost=0)
    tell(tenant_id, campaign_id, "paused", cause="twilio", code=63018)
    tell(tenant_id, campaign_id, "done")


def test_notices_are_stored_in_english_and_shown_in_kiswahili(tenant, make_campaign) -> None:
    campaign = make_campaign()
    _tell_all(tenant.id, campaign.pk)
    with tenant_context(tenant.id):
        stored = dict(CampaignEvent.objects.values_list("kind", "text"))
    assert "reach 200 customers a day (20% is kept" in stored["spread"]
    assert "resumes from Sat 28 Nov 08:00 shop time" in stored["tier_wait"]
    assert stored["done"] == "Finished: every recipient has been handled."
    assert stored["paused"] == (
        "Paused: Twilio error 63018: WhatsApp refused for the number's rate or messaging limit"
    )

    swahili = _home_notices(tenant.id, "sw")
    assert "Matangazo kwa wateja" in swahili  # the Broadcasts heading
    for words in (
        "wateja 200 kwa siku (20% kinahifadhiwa",
        "kuanzia Jmosi 28 Nov 08:00",
        "4 zimepatikana Twilio",
        "Imesimamishwa: hitilafu ya Twilio 63018: WhatsApp ilikataa kwa sababu ya kikomo",
        "Imekamilika: kila mpokeaji ameshughulikiwa.",
    ):
        assert words in swahili, words
    english = _home_notices(tenant.id, "en")
    assert "Finished: every recipient has been handled." in english
    assert "Imekamilika" not in english


def test_a_notice_without_its_figures_shows_its_stored_text(tenant, make_campaign) -> None:
    campaign = make_campaign()
    with tenant_context(tenant.id) as tid:
        CampaignEvent.objects.create(
            tenant_id=tid, campaign_id=campaign.pk, kind="spread", text="Older wording."
        )
    assert "Older wording." in _home_notices(tenant.id, "sw")
