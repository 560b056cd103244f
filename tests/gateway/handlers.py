"""Turn handlers used by the gateway tests (selected via TULIA_TURN_HANDLER)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tenants.keys import tenant_key
from tulia.conversations.turns import TurnInput, TurnOutput
from tulia.redis_client import get_redis


def echo(turn: TurnInput) -> TurnOutput:
    """Answers each turn with its texts; records how many turns overlapped, per
    conversation and across the tenant."""
    scopes = (turn.conversation_id, "all")
    for scope in scopes:
        _enter(tenant_key(turn.tenant_id, "test", "active", scope), turn, scope)
    time.sleep(float(os.environ.get("TEST_ECHO_DELAY", "0.05")))
    for scope in scopes:
        get_redis().decr(tenant_key(turn.tenant_id, "test", "active", scope))
    texts = " + ".join(message.text for message in turn.messages)
    return TurnOutput(replies=[f"echo: {texts}"])


def _enter(active: str, turn: TurnInput, scope: object) -> None:
    client = get_redis()
    overlap = tenant_key(turn.tenant_id, "test", "max-overlap", scope)
    now_active = client.incr(active)
    client.set(overlap, max(int(client.get(overlap) or 0), now_active))


def remember(turn: TurnInput) -> TurnOutput:
    seen = [*turn.state.get("seen", []), turn.messages[-1].text]
    return TurnOutput(replies=[f"turn {turn.turn_number}"], state={"seen": seen})


def explode(turn: TurnInput) -> TurnOutput:
    raise RuntimeError("engine down")


def slow_first_attempt(turn: TurnInput) -> TurnOutput:
    """Blocks the first attempt (so a test can kill the worker mid-turn); later ones answer.

    TEST_MARKER_DIR: the pid of the process running the turn is written there.
    """
    marker = Path(os.environ["TEST_MARKER_DIR"])
    first = not (marker / "attempted").exists()
    (marker / "attempted").write_text(str(os.getpid()))
    if first:
        (marker / "pid").write_text(str(os.getpid()))
        time.sleep(60)
    return TurnOutput(replies=[f"answer to {turn.messages[-1].text}"])
