"""`make run`'s launcher brings the whole platform up from an empty data folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.launcher

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.timeout(600)
def test_launcher_starts_web_and_worker_from_nothing(tmp_path: Path) -> None:
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "TULIA_PROFILE", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(TULIA_DATA_DIR=str(tmp_path / "data"), WEB_CONCURRENCY="1", CELERY_CONCURRENCY="1")
    result = subprocess.run(
        [sys.executable, "-m", "tulia.launcher", "--check", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=580,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert f"http://127.0.0.1:{port}/admin/" in result.stdout
    assert "tulia-demo-2026" in result.stdout
    assert "Tulia is running." in result.stdout  # printed only once the worker answered a ping
