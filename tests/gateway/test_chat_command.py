"""`manage.py chat`: terminal lines through the signed webhook, replies printed."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from tenants.context import tenant_context
from tulia.conversations.models import InboundMessage, OutboundMessage

pytestmark = pytest.mark.django_db(transaction=True)


def _chat(monkeypatch, *args: str, lines: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    out = io.StringIO()
    call_command("chat", *args, stdout=out)
    return out.getvalue()


def test_chat_prints_the_replies_the_outbound_path_sent(
    monkeypatch, tenant, stranger, settings
) -> None:
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    output = _chat(monkeypatch, "--tenant", "kicks", lines="Hi there\n/voice\n")
    lines = output.strip().splitlines()
    assert lines[0].startswith("Tulia: Thanks, Tulia here from Kicks Nairobi")
    assert "voice note" in lines[1]
    with tenant_context(tenant.id):
        assert InboundMessage.objects.filter(status="processed").count() == 2
        sent = list(OutboundMessage.objects.order_by("id").values_list("body", "status"))
    assert [f"Tulia: {body}" for body, _ in sent] == lines
    assert {status for _, status in sent} == {"sent"}
    with tenant_context(stranger.id):
        assert not InboundMessage.objects.exists()


def test_chat_speaks_the_shop_language(monkeypatch, stranger, settings) -> None:
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    output = _chat(monkeypatch, "mama-mboga", "--phone", "0722000111", lines="Habari\n")
    assert "Tumepokea ujumbe wako" in output


def test_chat_with_an_unknown_shop_fails_clearly(monkeypatch, tenant) -> None:
    with pytest.raises(CommandError, match="no tenant"):
        _chat(monkeypatch, "--tenant", "nope", lines="hi\n")


@pytest.mark.usefixtures("celery_worker")
def test_chat_over_http_is_answered_by_the_worker(monkeypatch, live_server, tenant, settings):
    settings.TULIA_WHATSAPP_BACKEND = "tulia.whatsapp.backends.console.ConsoleBackend"
    output = _chat(monkeypatch, "kicks", "--url", live_server.url, lines="Hi over HTTP\n")
    assert output.startswith("Tulia: Thanks, Tulia here from Kicks Nairobi")
