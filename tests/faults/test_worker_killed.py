"""The whole Celery worker SIGKILLed mid-turn (its main process, both pool children and
its beat, as the soak does): the stranded turn is answered, once, within seconds.

The process killed is the `celery worker --beat` (prefork, two children) that `make run`
and the soak start under tulia/worker.py's supervisor; the supervisor survives and forks
a new, already loaded worker. Nobody acknowledges the task the dead worker held
(acks_late), and the Redis transport would hand it out again only after its visibility
timeout (minutes); what brings the turn back is the lease: no longer renewed, it runs
out after TULIA_TURN_LOCK_LEASE seconds and the sweeper (on the new worker's beat)
re-enqueues the thread.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from django.conf import settings

from tenants.context import tenant_context
from tests.gateway.conftest import TEST_QUEUE, event
from tests.gateway.test_worker import wait_for
from tests.gateway.test_worker_crash import ROOT, _worker_env
from tulia.celery import app as celery_app
from tulia.conversations.models import InboundMessage, OutboundMessage

pytestmark = pytest.mark.django_db(transaction=True)
# Generous: the contract is 15 s; this only keeps a broken recovery from hanging.
ANSWER_BOUND_SECONDS = 30.0
# The supervisor, with this process's queue set before it forks the worker.
SUPERVISOR_MAIN = f"""
import sys
from tulia.celery import app
from tulia.worker import main
app.conf.task_default_queue = {TEST_QUEUE!r}
sys.exit(main(sys.argv[1:]))
"""


def _start_supervisor(marker: Path, log: Path) -> subprocess.Popen[bytes]:
    env = _worker_env(marker)
    # The production lease and sweep interval, not the short ones of the other crash test.
    env["TULIA_TURN_LOCK_LEASE"] = str(settings.TULIA_TURN_LOCK_LEASE)
    options = ["--pool", "prefork", "--concurrency", "2", "--loglevel", "INFO", "--beat"]
    options += ["--without-mingle", "--schedule", str(marker / "beat")]
    options += ["-n", f"killed-{os.getpid()}@%h"]
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-c", SUPERVISOR_MAIN, *options],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _kill_tree(pid: int) -> None:
    family = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for member in family:
        member.kill()
    psutil.wait_procs(family, timeout=10)


@pytest.fixture
def supervisor(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    celery_app.control.purge()
    process = _start_supervisor(tmp_path, tmp_path / "worker.log")
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _kill_tree(process.pid)


def test_whole_worker_killed_mid_turn_is_answered_once_soon_after(
    post_signed, tenant, supervisor, tmp_path
) -> None:
    assert post_signed("inbound", event("inbound_text", Body="m1")).status_code == 200
    wait_for((tmp_path / "pid").exists, timeout=180)  # the turn is running in a pool child
    (celery,) = psutil.Process(supervisor.pid).children()
    killed_at = time.monotonic()
    _kill_tree(celery.pid)

    def answered() -> bool:
        with tenant_context(tenant.id):
            return OutboundMessage.objects.filter(status="sent").exists()

    wait_for(answered, timeout=ANSWER_BOUND_SECONDS)
    waited = time.monotonic() - killed_at
    print(f"\nworker killed mid-turn: reply sent {waited:.1f} s after the kill")  # noqa: T201
    with tenant_context(tenant.id):
        message = InboundMessage.objects.get()
        replies = list(OutboundMessage.objects.values_list("body", flat=True))
    assert replies == ["answer to m1"]
    assert message.status == InboundMessage.Status.PROCESSED
    assert message.attempts == 2
