"""Benchmark: how soon a Celery worker takes tasks again after its Redis broker comes back.

The soak (bench/soak.py) kills Redis for 10 s and measures the wait of the customers it
strands; most of that wait, past the 10 s, is the worker finding its broker again. This
isolates that part: a private embedded Redis in a temporary directory, one Celery worker
of our application (its settings, its consumer) using it as the broker, then ROUNDS
times: SIGKILL Redis, leave it down DOWN_SECONDS, start it again, put one task on the
queue and watch the queue until the worker has taken it (a built-in Celery task, so no
database is involved). The time from Redis's return to that is the reconnection delay.

Knobs: BENCH_ROUNDS (default 3), BENCH_DOWN_SECONDS (default 10).
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from celery import Celery

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
DOWN_SECONDS = float(os.environ.get("BENCH_DOWN_SECONDS", "10"))
PROFILE = "reconnect"
WORKER_NAME = "reconnect@bench"
QUEUE = "reconnect-bench"


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "celery", "-A", "tulia.celery", "worker", "--pool", "solo",
        "--without-mingle", "--without-gossip", "-n", WORKER_NAME, "--loglevel", "WARNING",
        "-Q", QUEUE,
    ]  # fmt: skip
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603


def _until_taken(app: Celery, broker: redis.Redis, limit: float) -> float:
    """Seconds until the worker takes a task put on its queue now."""
    started = time.monotonic()
    app.send_task("celery.accumulate", args=(1,), queue=QUEUE)
    while time.monotonic() - started < limit:
        if broker.llen(QUEUE) == 0:
            return time.monotonic() - started
        time.sleep(0.05)
    raise RuntimeError(f"the worker took no task within {limit:.0f} s")


def main() -> int:
    data = Path(tempfile.mkdtemp(prefix="tulia-reconnect-"))
    os.environ["TULIA_DATA_DIR"] = str(data)
    from tulia import embedded

    redis_url = embedded.ensure_redis(PROFILE)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tulia.settings",
        "TULIA_PROFILE": "dev",
        "REDIS_URL": redis_url,
        # Never connected to: the worker here runs no task that touches the database.
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/unused",
        "TULIA_LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    from tulia.celery import app

    broker = redis.Redis.from_url(redis_url, socket_timeout=1)
    worker = _worker(env, data / "worker.log")
    delays: list[float] = []
    try:
        print(f"worker took its first task after {_until_taken(app, broker, 120):.1f} s")
        for round_no in range(1, ROUNDS + 1):
            pidfile = embedded.data_dir(PROFILE) / "redis" / "redis.pid"
            os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
            time.sleep(DOWN_SECONDS)
            embedded.ensure_redis(PROFILE)
            delay = _until_taken(app, broker, 120)
            delays.append(delay)
            down = f"Redis down {DOWN_SECONDS:.0f} s"
            print(f"round {round_no}: {down}; a task taken {delay:.2f} s after it returned")
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        embedded.stop_redis(PROFILE)
    print(
        f"reconnect after Redis returns: median {statistics.median(delays):.2f} s, "
        f"max {max(delays):.2f} s over {len(delays)} rounds (load {os.getloadavg()[0]:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
