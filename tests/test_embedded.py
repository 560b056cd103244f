"""The embedded servers start only when asked, from any data folder, and stop again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from tulia import embedded

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.process


def test_importing_the_settings_starts_no_server(tmp_path: Path) -> None:
    outer = {"DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL"}
    env = {k: v for k, v in os.environ.items() if k not in outer}
    env.update(
        TULIA_DATA_DIR=str(tmp_path / "data"),
        TULIA_PROFILE="dev",
        DJANGO_SETTINGS_MODULE="tulia.settings",
    )
    code = (
        "import django; django.setup(); from django.conf import settings; print(settings.REDIS_URL)"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    data = tmp_path / "data" / "dev"
    assert printed.startswith("unix://")  # named, not started
    assert not (data / "pg").exists()
    assert not (data / "redis").exists()


def test_a_relative_data_dir_starts_and_stops_redis(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TULIA_DATA_DIR", "data")
    monkeypatch.delenv("REDIS_URL", raising=False)  # restored after the test
    started = embedded.start("relative")  # DATABASE_URL is set: only Redis starts
    url = os.environ["REDIS_URL"]
    try:
        assert started.redis
        assert not started.postgres
        assert embedded.data_dir("relative") == tmp_path / "data" / "relative"
        assert url == embedded.redis_url("relative")
        assert redis.Redis.from_url(url, socket_timeout=2).ping()
    finally:
        embedded.stop(started)
    with pytest.raises((redis.ConnectionError, FileNotFoundError)):
        redis.Redis.from_url(url, socket_timeout=2).ping()


def _processes_using(folder: Path) -> list[int]:
    """Pids whose command line names `folder`: the postmaster (-D), Redis (its socket)
    and the watchdogs guarding them."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(folder).encode() in command:
            found.append(int(entry.name))
    return found


def test_servers_die_when_their_data_folder_is_deleted(tmp_path: Path, monkeypatch) -> None:
    """A deleted clone leaves no server behind: the watchdog kills the pair it guards."""
    monkeypatch.setenv("TULIA_DATA_DIR", str(tmp_path / "clone" / "var"))
    for name in ("DATABASE_URL", "DATABASE_OWNER_URL", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)  # restored after the test
    started = embedded.start("gone")
    folder = embedded.data_dir("gone")
    try:
        assert started.postgres
        assert started.redis
        redis_pid = int((folder / "redis" / "redis.pid").read_text().split()[0])
        assert {embedded._postmaster_pid("gone"), redis_pid} <= set(_processes_using(folder))
        shutil.rmtree(tmp_path / "clone")
        deadline = time.monotonic() + 30
        while _processes_using(folder) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _processes_using(folder) == []
    finally:
        if folder.exists():
            embedded.stop(started)
