"""`make run`'s launcher brings the whole platform up from an empty data folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.launcher

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# The test run's own servers and profile: the launcher under test must start its own.
_OUTER_SERVERS = frozenset(
    {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL", "TULIA_PROFILE", "DJANGO_SETTINGS_MODULE"}
)


def _launcher_env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _OUTER_SERVERS}
    env.update(TULIA_DATA_DIR=str(tmp_path / "data"), WEB_CONCURRENCY="1", CELERY_CONCURRENCY="1")
    return env


def _wait_for_line(process: subprocess.Popen[str], text: str, timeout: float) -> list[str]:
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError("".join(seen[-60:]))


def _answers(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.timeout(600)
def test_launcher_starts_everything_and_sigterm_stops_everything(tmp_path: Path) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tulia.launcher", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=_launcher_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        seen = "".join(_wait_for_line(process, "Press Ctrl-C to stop.", timeout=540))
        assert f"http://127.0.0.1:{port}/admin/" in seen
        assert "tulia-demo-2026" in seen
        assert "Tulia is running." in seen  # printed only once the worker answered a ping
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert not _answers(port)  # gunicorn went with the launcher
    data = tmp_path / "data" / "dev"
    # The embedded servers it started are stopped too: nothing of this test keeps running.
    assert not (data / "pg" / "postmaster.pid").exists()
    assert not (data / "redis" / "redis.pid").exists()
