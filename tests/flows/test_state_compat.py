"""States saved by older code continue identically (issue 26 item 2).

tests/flows/fixtures/states/ holds conversations captured by RUNNING commits 9040080 and
fe806fe (tests/flows/fixtures/capture_states.py says how): before each customer line,
the state the old gateway stored, the line, the reply the old code gave and what the
database held afterwards. Each case here replays the earlier lines with today's code
(so the orders and payments the state names exist, under the same ids: every id
sequence starts at the same number), then puts the OLD stored state back on the
conversation, exactly as saved, and sends the next line through the webhook. The
handler brings it up through `journeys.upgrade`; the reply and the database must be
the ones the old code produced.

Order references and the payment emulators' links are random per run, so they are
masked before comparing. A 9040080
state is checked only at lines where 9040080 and fe806fe answered alike (behaviour
changed on purpose between them, e.g. search honesty in issue 18, a handoff now
waits for a person); every fe806fe line is a candidate.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from journeys.state import STATE_VERSION
from journeys.upgrade import upgrade
from tenants.context import tenant_context
from tests.flows.chat import WebhookChat, start_webhook_chat
from tests.flows.effects import ACTIONS, observed
from tests.flows.fixtures.capture_states import restart_sequences
from tulia import clock
from tulia.conversations.models import Conversation

STATES = Path(__file__).parent / "fixtures" / "states"
REFERENCE = re.compile(r"\b[A-Z0-9]{2,8}-[2-9A-Z]{6}\b")
# A provider emulator listens on a free port and makes up its tracking ids.
EMULATOR_URL = re.compile(r"https?://127\.0\.0\.1:\d+/\S*")
STOPS_PER_CONVERSATION = 2

pytestmark = pytest.mark.django_db


def _masked(text: str) -> str:
    return EMULATOR_URL.sub("<emulator>", REFERENCE.sub("<ref>", text))


def _load(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((STATES / name).read_text(encoding="utf-8"))
    return found


def _agreeing(capture: dict[str, Any]) -> list[int]:
    """Lines (from the second on) whose reply today's shape is held to."""
    steps = capture["steps"]
    lines = range(1, len(steps))
    if capture["commit"] == "fe806fe":
        return list(lines)
    twin = STATES / f"fe806fe_{capture['transcript']}.json"
    later = _load(twin.name)["steps"] if twin.exists() else []
    return [
        n
        for n in lines
        if n < len(later)
        and [s["line"] for s in later[: n + 1]] == [s["line"] for s in steps[: n + 1]]
        and _masked(later[n]["reply"]) == _masked(steps[n]["reply"])
        and _same(later[n]["effects"], steps[n]["effects"])
    ]


def _same(now: dict[str, Any], then: dict[str, Any]) -> bool:
    """The same database outcome on what both versions observed."""
    return {k: now[k] for k in then if k in now} == {k: then[k] for k in then if k in now}


def _cases() -> list[tuple[str, int]]:
    cases = []
    for path in sorted(STATES.glob("*.json")):
        candidates = _agreeing(_load(path.name))
        # The middle of the conversation and its last line: mid-sale and after it.
        picked = {candidates[len(candidates) // 2], candidates[-1]} if candidates else set()
        cases += [(path.name, n) for n in sorted(picked)][:STOPS_PER_CONVERSATION]
    return cases


CASES = _cases()


@pytest.fixture(autouse=True)
def real_turns(settings: Any) -> None:
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000


def _send(chat: WebhookChat, line: dict[str, Any]) -> str:
    if "do" in line:
        ACTIONS[line["do"]](chat)
    return chat.send(line["say"], line.get("kind", "text"), duplicate=line.get("duplicate", False))


def _put_back(chat: WebhookChat, state: dict[str, Any], turn_number: int) -> None:
    """The old stored state on the conversation, as the old gateway left it."""
    with tenant_context(chat.tenant.id) as tid:
        Conversation.objects.filter(tenant_id=tid, pk=chat.conversation_id).update(
            state=state, turn_count=turn_number
        )
    chat.state, chat.turn_number = dict(state), turn_number


def test_the_fixtures_are_old_states() -> None:
    """They carry no version (written before it existed) and upgrade to the current one."""
    assert CASES, "no captured states"
    for name, n in CASES:
        saved = _load(name)["steps"][n]["state_before"]
        assert "state_version" not in saved
        assert upgrade(saved)["state_version"] == STATE_VERSION


@pytest.mark.parametrize(("name", "stop"), CASES, ids=[f"{c[0][:-5]}-{c[1]}" for c in CASES])
def test_an_old_state_continues_identically(
    name: str, stop: int, request: pytest.FixtureRequest
) -> None:
    capture = _load(name)
    steps = capture["steps"]
    restart_sequences()
    for fixture in capture["fixtures"]:
        request.getfixturevalue(fixture)
    chat = start_webhook_chat(request.getfixturevalue(capture["shop"]), capture["phone"])
    saved = steps[stop]["state_before"]
    # The old code saw the clock a moment after the state's last message.
    with clock.held_at((saved.get("last_seen_at") or clock.now()) + 1):
        for step in steps[:stop]:
            _send(chat, step["line"])
        _put_back(chat, saved, steps[stop]["turn_number_before"])
        reply = _send(chat, steps[stop]["line"])
    assert _masked(reply) == _masked(steps[stop]["reply"])
    now, then = json.loads(json.dumps(observed(chat), default=str)), steps[stop]["effects"]
    assert _same(now, then), (now, then)
    assert chat.state["state_version"] == STATE_VERSION
