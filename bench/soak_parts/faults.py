"""The faults a soak survives: the embedded Redis killed and restarted, the Celery
worker SIGKILLed mid-work and started again by its supervisor."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

import psutil

from soak_parts.processes import family
from tulia import embedded

REDIS_DOWN_SECONDS = 10.0


def kill_tree(pid: int) -> None:
    processes = family(pid)
    for process in processes:
        try:
            process.send_signal(signal.SIGKILL)
        except psutil.Error:
            continue
    psutil.wait_procs(processes, timeout=10)


def restart_redis(profile: str, killed_at: dict[str, float]) -> None:
    """SIGKILL the embedded Redis (a crash, not a clean shutdown), then start it again."""
    pidfile = embedded.data_dir(profile) / "redis" / "redis.pid"
    os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
    killed_at["redis"] = time.time()
    time.sleep(REDIS_DOWN_SECONDS)
    embedded.ensure_redis(profile)


@dataclass
class FaultPlan:
    """Redis at `redis_at` and the worker at `worker_at` (shares of the run)."""

    profile: str
    # The worker supervisor (tulia/worker.py); the Celery worker is its child.
    worker: subprocess.Popen[bytes]
    redis_at: float = 0.35
    worker_at: float = 0.65
    events: list[tuple[float, str]] = field(default_factory=list)
    workers: list[int] = field(default_factory=list)
    # Wall-clock time of each kill, to compare with the stored message timestamps.
    killed_at: dict[str, float] = field(default_factory=dict)

    def tick(self, share: float, elapsed: float) -> None:
        if share >= self.redis_at and not self._done("redis"):
            self.events.append((elapsed, "redis killed, back after 10 s"))
            # In a thread: the customers' loop keeps running while Redis is away.
            threading.Thread(
                target=restart_redis, args=(self.profile, self.killed_at), daemon=True
            ).start()
        if share >= self.worker_at and not self._done("worker"):
            self.events.append((elapsed, "worker killed"))
            (celery,) = psutil.Process(self.worker.pid).children()
            self.killed_at["worker"] = time.time()
            kill_tree(celery.pid)  # the supervisor forks a new worker at once
            self.workers.append(celery.pid)

    def _done(self, what: str) -> bool:
        return any(name.startswith(what) for _, name in self.events)
