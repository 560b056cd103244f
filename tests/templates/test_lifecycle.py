"""Templates through the emulator's Content API: create, submit, approve or reject, sync."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tenants.context import tenant_context
from tenants.errors import NotFound
from tulia.whatsapp import templates
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.purposes import PAYMENT_RECEIVED, PURPOSES

pytestmark = pytest.mark.django_db
Status = MessageTemplate.Status


def _draft(tenant, **fields) -> MessageTemplate:
    values = {
        "name": "spring_sale", "language": "en", "category": "marketing",
        "body": "Hello! Our spring sale starts {{1}} with {{2}} off. Reply STOP to opt out.",
        "examples": {"1": "Friday", "2": "10%"},
    } | fields  # fmt: skip
    with tenant_context(tenant.id) as tid:
        template = MessageTemplate(tenant_id=tid, **values)
        template.full_clean()
        template.save()
        return template


def test_create_submit_and_approve_through_the_content_api(tenant, twilio) -> None:
    template = templates.submit(tenant.id, _draft(tenant).pk)
    assert template.status == Status.PENDING
    content = twilio.content(template.content_sid)
    assert content.body.startswith("Hello! Our spring sale starts {{1}}")
    assert content.variables == {"1": "Friday", "2": "10%"}
    assert content.approval is not None
    assert (content.approval["name"], content.approval["category"]) == ("spring_sale", "MARKETING")
    twilio.approve(template.content_sid)
    assert templates.sync(tenant.id, template.pk).status == Status.APPROVED


def test_rejection_reason_comes_back_on_sync(tenant, twilio) -> None:
    template = templates.submit(tenant.id, _draft(tenant).pk)
    twilio.reject(template.content_sid, "Promotional content in a utility template")
    synced = templates.sync(tenant.id, template.pk)
    assert synced.status == Status.REJECTED
    assert synced.rejection_reason == "Promotional content in a utility template"


def test_only_approved_templates_are_picked(tenant, twilio) -> None:
    templates.install_starter_templates(tenant.id)
    assert templates.approved_template(tenant.id, PAYMENT_RECEIVED, ["en"]) is None
    with tenant_context(tenant.id):
        sw = MessageTemplate.objects.get(purpose=PAYMENT_RECEIVED, language="sw")
    twilio.approve(sw.content_sid)
    templates.sync_open(tenant.id)
    picked = templates.approved_template(tenant.id, PAYMENT_RECEIVED, ["en", "sw"])
    assert picked is not None
    assert picked.language == "sw"


def test_starter_set_covers_every_purpose_in_en_and_sw_once(tenant, twilio) -> None:
    first = templates.install_starter_templates(tenant.id)
    again = templates.install_starter_templates(tenant.id)
    assert sorted(first) == sorted(again)
    with tenant_context(tenant.id):
        rows = list(MessageTemplate.objects.all())
    assert {(row.purpose, row.language) for row in rows} == {
        (purpose, language) for purpose in PURPOSES for language in ("en", "sw")
    }
    for row in rows:
        row.full_clean()  # every starter body obeys WhatsApp's variable rules
        assert row.category == "utility"
        assert "Kicks Nairobi" in row.body
    assert len(twilio.state.contents) == len(rows)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("{{1}} is ready for pickup.", "start or end"),
        ("Order {{1}}{{2}} is ready.", "next to each other"),
        ("Order {{2}} is ready, thanks.", "without gaps"),
    ],
)
def test_bodies_breaking_whatsapp_rules_are_refused(tenant, body, problem) -> None:
    with pytest.raises(ValidationError, match=problem):
        _draft(tenant, body=body, examples={"1": "x", "2": "y"})


def test_stranger_cannot_submit_or_sync_anothers_template(tenant, stranger, twilio) -> None:
    template = _draft(tenant)
    with pytest.raises(NotFound):
        templates.submit(stranger.id, template.pk)
    with pytest.raises(NotFound):
        templates.sync(stranger.id, template.pk)
    assert twilio.state.contents == {}


def test_another_account_cannot_read_the_content(tenant, stranger, twilio) -> None:
    from twilio.base.exceptions import TwilioRestException
    from twilio.rest import Client

    template = templates.submit(tenant.id, _draft(tenant).pk)
    client = Client("AC" + "b" * 32, "token-b-987654321")
    client.content.base_url = twilio.base_url
    with pytest.raises(TwilioRestException) as caught:
        client.content.v1.contents(template.content_sid).fetch()
    assert caught.value.status == 404


def test_beat_sync_reaches_only_shops_with_templates_under_review(tenant, stranger, twilio) -> None:
    from tulia.whatsapp.tasks import sync_tenant_templates

    installed = templates.install_starter_templates(tenant.id)
    assert templates.tenants_with_open_templates() == [tenant.id]
    with tenant_context(tenant.id):
        first = MessageTemplate.objects.get(pk=installed[0])
    twilio.approve(first.content_sid)
    assert sync_tenant_templates(str(tenant.id)) == len(installed)
    with tenant_context(tenant.id):
        assert MessageTemplate.objects.get(pk=first.pk).status == Status.APPROVED
    assert sync_tenant_templates(str(stranger.id)) == 0
