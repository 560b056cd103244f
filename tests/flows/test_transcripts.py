"""End-to-end conversations written as data (journeys/transcripts/*.yaml), each line
through the real webhook (SPEC §10): signed Twilio form → stored InboundMessage →
pipeline → handle_turn → stored OutboundMessage rows and Conversation.state.

Each file names the shop fixture, then the customer's lines with what each reply must
(or must not) say and what the state must hold, and finally the side effects in the
database. Replies vary by template variation, so expectations name facts (items,
amounts, links), never whole sentences. A line's `at_minute` moves the clock
(tulia.clock) to that many minutes after the first message and keeps it there for the
lines that follow: silence is simulated, never slept.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenants.models import Tenant
from tenants.services import update_tenant
from tests.flows.chat import WebhookChat, start_webhook_chat
from tests.flows.effects import ACTIONS, observed
from tulia import clock
from tulia.text import say

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "journeys" / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*.yaml"))
FIRST_MESSAGE_AT = 1_800_000_000.0  # seconds since the epoch; any fixed moment serves
# TULIA_TRANSCRIPTS_PRIVACY_NOTICE=1 runs every transcript with the shop's privacy notice
# on (a one-off check); without it only the files saying `privacy_notice: true` do.
ALL_WITH_NOTICE = os.environ.get("TULIA_TRANSCRIPTS_PRIVACY_NOTICE") == "1"
LANGUAGES = ("en", "sw", "sheng")

pytestmark = pytest.mark.django_db


def check_reply(reply: str, expect: dict[str, Any], where: str) -> None:
    if expect.get("no_reply"):
        assert reply == "", f"{where}: expected silence, got {reply!r}"
        return
    assert reply, f"{where}: no reply"
    for fact in expect.get("contains", []):
        assert fact.lower() in reply.lower(), f"{where}: {fact!r} missing from {reply!r}"
    for fact in expect.get("not_contains", []):
        assert fact.lower() not in reply.lower(), f"{where}: {fact!r} in {reply!r}"
    for pattern in expect.get("matches", []):
        assert re.search(pattern, reply, re.IGNORECASE), f"{where}: /{pattern}/ not in {reply!r}"
    if "max_options" in expect:
        numbered = re.findall(r"^\d+\. ", reply, re.MULTILINE)
        assert len(numbered) <= expect["max_options"], f"{where}: {len(numbered)} options"


def check_state(state: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    """`expected` names a nested part's field by its path ("sale.step")."""
    for key, value in expected.items():
        found: Any = state
        for name in key.split("."):
            found = found.get(name) if isinstance(found, dict) else None
        assert found == value, f"{where}: state[{key!r}] = {found!r}"


def check_effects(found: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    for key, value in expected.items():
        assert found[key] == value, f"{where}: {key} = {found[key]!r}, expected {value!r}"


class NoticeCheck:
    """The privacy notice, when the shop shows it: after the first turn's reply (never
    after a first STOP), once, in the conversation's language, as the last part with
    the answer before it whole."""

    def __init__(self, shop: Tenant) -> None:
        self.shop = shop
        self.notices = {
            lang: say("gateway.privacy_notice", lang, shop=shop.name) for lang in LANGUAGES
        }

    def strip(self, reply: str, chat: WebhookChat, where: str) -> str:
        found = [lang for lang, text in self.notices.items() if text in reply]
        if chat.turn_number != 1 or not reply or chat.state.get("consent_command"):
            assert not found, f"{where}: privacy notice where none belongs: {reply!r}"
            return reply
        language = chat.state.get("response_language") or self.shop.default_language
        notice = self.notices[language]
        assert found == [language], f"{where}: notice in {found}, chat in {language}: {reply!r}"
        assert reply.endswith("\n" + notice), f"{where}: notice not last, or alone: {reply!r}"
        return reply.removesuffix("\n" + notice)


@pytest.fixture(autouse=True)
def real_turns(settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    # A transcript is one customer typing fast; the per-minute limit has its own tests.
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_transcript(path: Path, request: pytest.FixtureRequest) -> None:
    script = yaml.safe_load(path.read_text(encoding="utf-8"))
    for fixture in script.get("fixtures", []):
        request.getfixturevalue(fixture)
    shop = request.getfixturevalue(script["shop"])
    notice = None
    if ALL_WITH_NOTICE or script.get("privacy_notice"):
        update_tenant(shop, compliance={**shop.compliance, "show_privacy_notice": True})
        notice = NoticeCheck(shop)
    chat = start_webhook_chat(shop, script.get("phone", "0712345678"))
    minute = 0.0
    for n, line in enumerate(script["turns"], start=1):
        where = f"{path.stem} turn {n} ({line.get('say')!r})"
        minute = float(line.get("at_minute", minute))
        with clock.held_at(FIRST_MESSAGE_AT + minute * 60):
            if "do" in line:
                seen = chat._last_outbound_id()
                ACTIONS[line["do"]](chat)
                if "notice" in line:  # what the outside event told the customer
                    check_reply(chat.notices_after(seen), line["notice"], f"{where} notice")
            if "say" not in line:
                continue
            reply = chat.send(
                line["say"], line.get("kind", "text"), duplicate=line.get("duplicate", False)
            )
        if notice is not None:
            reply = notice.strip(reply, chat, where)
        check_reply(reply, line.get("expect", {}), where)
        check_state(chat.state, line.get("state", {}), where)
        check_effects(observed(chat), line.get("effects", {}), where)
    check_effects(observed(chat), script.get("effects", {}), f"{path.stem} at the end")
