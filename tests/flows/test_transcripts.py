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

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.flows.chat import start_webhook_chat
from tests.flows.effects import ACTIONS, observed
from tulia import clock

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "journeys" / "transcripts"
FILES = sorted(TRANSCRIPTS.glob("*.yaml"))
FIRST_MESSAGE_AT = 1_800_000_000.0  # seconds since the epoch; any fixed moment serves

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
    for key, value in expected.items():
        assert state.get(key) == value, f"{where}: state[{key!r}] = {state.get(key)!r}"


def check_effects(found: dict[str, Any], expected: dict[str, Any], where: str) -> None:
    for key, value in expected.items():
        assert found[key] == value, f"{where}: {key} = {found[key]!r}, expected {value!r}"


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
    chat = start_webhook_chat(shop, script.get("phone", "0712345678"))
    minute = 0.0
    for n, line in enumerate(script["turns"], start=1):
        where = f"{path.stem} turn {n} ({line.get('say')!r})"
        minute = float(line.get("at_minute", minute))
        with clock.held_at(FIRST_MESSAGE_AT + minute * 60):
            if "do" in line:
                ACTIONS[line["do"]](chat)
            if "say" not in line:
                continue
            reply = chat.send(
                line["say"], line.get("kind", "text"), duplicate=line.get("duplicate", False)
            )
        check_reply(reply, line.get("expect", {}), where)
        check_state(chat.state, line.get("state", {}), where)
        check_effects(observed(chat), line.get("effects", {}), where)
    check_effects(observed(chat), script.get("effects", {}), f"{path.stem} at the end")
