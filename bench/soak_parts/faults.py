"""The faults a soak survives: the embedded Redis killed and restarted, the Celery
worker SIGKILLed mid-work and started again."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
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


def restart_redis(profile: str) -> None:
    """SIGKILL the embedded Redis (a crash, not a clean shutdown), then start it again."""
    pidfile = embedded.data_dir(profile) / "redis" / "redis.pid"
    os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)
    time.sleep(REDIS_DOWN_SECONDS)
    embedded.ensure_redis(profile)


@dataclass
class FaultPlan:
    """Redis at `redis_at` and the worker at `worker_at` (shares of the run)."""

    profile: str
    start_worker: Callable[[], subprocess.Popen[bytes]]
    worker: subprocess.Popen[bytes]
    redis_at: float = 0.35
    worker_at: float = 0.65
    events: list[tuple[float, str]] = field(default_factory=list)
    workers: list[int] = field(default_factory=list)

    def tick(self, share: float, elapsed: float) -> None:
        if share >= self.redis_at and not self._done("redis"):
            self.events.append((elapsed, "redis killed, back after 10 s"))
            # In a thread: the customers' loop keeps running while Redis is away.
            threading.Thread(target=restart_redis, args=(self.profile,), daemon=True).start()
        if share >= self.worker_at and not self._done("worker"):
            self.events.append((elapsed, "worker killed"))
            kill_tree(self.worker.pid)
            self.worker = self.start_worker()
            self.workers.append(self.worker.pid)
            self.events.append((elapsed, "worker started"))

    def _done(self, what: str) -> bool:
        return any(name.startswith(what) for _, name in self.events)
