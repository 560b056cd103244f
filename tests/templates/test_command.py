"""`manage.py install_templates` for shops that existed before templates did."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from tenants.context import tenant_context
from tulia.whatsapp.models import MessageTemplate

pytestmark = pytest.mark.django_db


def _count(tenant) -> int:
    with tenant_context(tenant.id):
        return MessageTemplate.objects.count()


def test_installs_for_one_shop_only(tenant, stranger, twilio) -> None:
    out = io.StringIO()
    call_command("install_templates", "--tenant", "kicks", stdout=out)
    assert "kicks: 16 templates" in out.getvalue()
    assert (_count(tenant), _count(stranger)) == (16, 0)
    assert len(twilio.state.contents) == 16


def test_all_shops_and_sync(tenant, stranger, twilio) -> None:
    twilio.auto_approve = True
    out = io.StringIO()
    call_command("install_templates", "--all", "--sync", stdout=out)
    assert (_count(tenant), _count(stranger)) == (16, 16)
    with tenant_context(stranger.id):
        assert set(MessageTemplate.objects.values_list("status", flat=True)) == {"approved"}
    assert "mama-mboga: 16 templates, 16 synced" in out.getvalue()


def test_needs_a_shop(tenant) -> None:
    with pytest.raises(CommandError, match="exactly one"):
        call_command("install_templates")
