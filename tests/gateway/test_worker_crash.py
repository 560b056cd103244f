"""A worker process killed in the middle of a turn: the turn is retried, one reply."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from tenants.context import tenant_context
from tulia.celery import app as celery_app
from tulia.conversations.models import InboundMessage, OutboundMessage

from .conftest import TEST_QUEUE, event
from .test_worker import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.process]
ROOT = Path(__file__).resolve().parents[2]
# The worker consumes, and publishes its retries and deliveries, on this process's queue.
WORKER_MAIN = f"""
import sys
from tulia.celery import app
app.conf.task_default_queue = {TEST_QUEUE!r}
app.worker_main(["worker", *sys.argv[1:]])
"""


def _test_database_url() -> str:
    """The app's URL, naming the test database instead (the socket is in OPTIONS)."""
    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"].get("host", "")
    return f"postgresql://{db['USER']}@/{db['NAME']}?host={quote(str(host))}"


def _worker_env(marker: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "TULIA_PROFILE": "test",
        "TULIA_TURN_HANDLER": "tests.gateway.handlers.slow_first_attempt",
        "TULIA_WHATSAPP_BACKEND": "tulia.whatsapp.backends.console.ConsoleBackend",
        "TULIA_TURN_LOCK_LEASE": "2",
        "TEST_MARKER_DIR": str(marker),
    }


@pytest.fixture
def worker_process(tmp_path: Path) -> Iterator[Path]:
    """A `celery worker` subprocess (prefork, one child); yields the marker folder."""
    celery_app.control.purge()
    options = ["--pool", "prefork", "--concurrency", "1", "--loglevel", "INFO"]
    options += ["-n", f"crash-test-{os.getpid()}@%h"]
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER_MAIN, *options],
        cwd=ROOT,
        env=_worker_env(tmp_path),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield tmp_path
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def test_worker_killed_mid_turn_retries_the_turn_and_replies_once(
    post_signed, tenant, worker_process
) -> None:
    marker = worker_process
    assert post_signed("inbound", event("inbound_text", Body="m1")).status_code == 200
    wait_for((marker / "pid").exists, timeout=90)
    os.kill(int((marker / "pid").read_text()), signal.SIGKILL)  # the pool child, mid-turn

    def answered() -> bool:
        with tenant_context(tenant.id):
            return OutboundMessage.objects.filter(status="sent").exists()

    wait_for(answered, timeout=90)
    with tenant_context(tenant.id):
        message = InboundMessage.objects.get()
        replies = list(OutboundMessage.objects.values_list("body", flat=True))
    assert replies == ["answer to m1"]
    assert message.status == InboundMessage.Status.PROCESSED
    assert message.attempts == 2
