"""`python -m tulia.worker [celery worker options]`: a Celery worker restarted warm.

Starting a worker from nothing costs seconds of CPU (Django, the turn engine and its
language models), and on a busy machine tens of seconds of wall time, all of it while
the customers of a killed worker wait. So this small supervisor loads all of that once
(tulia/preload.py) and forks the Celery worker from itself; when the worker dies, for
whatever reason, it forks a new one that starts already loaded. How long a stranded
turn then waits is bounded by the thread lease (conversations/locks.py), not by a cold
start. The forked workers also share the supervisor's loaded pages (PSS).

SIGTERM or SIGINT stop the worker (Celery's warm shutdown) and then the supervisor. If
the supervisor itself dies, whatever runs it (compose's `restart:`, Kubernetes,
`make run`'s launcher) starts it again, cold.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from types import FrameType

logger = logging.getLogger("tulia.worker")
# A worker that dies sooner than this after starting is crash-looping: back off.
HEALTHY_SECONDS = 10.0
MAX_PAUSE_SECONDS = 30.0


def _run_worker(argv: list[str]) -> None:
    """In the forked child: become the Celery worker; never returns."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    code = 1
    try:
        from tulia.celery import app

        app.worker_main(["worker", *argv])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os._exit(code)


class Supervisor:
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.child = 0
        self.stopping = False

    def stop(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        if self.child:
            os.kill(self.child, signal.SIGTERM)

    def run(self) -> int:
        pause = 0.0
        while not self.stopping:
            started = time.monotonic()
            self.child = os.fork()
            if self.child == 0:
                _run_worker(self.argv)
            _, status = os.waitpid(self.child, 0)
            self.child = 0
            if self.stopping:
                break
            ran = time.monotonic() - started
            pause = 0.0 if ran > HEALTHY_SECONDS else min(max(pause * 2, 0.5), MAX_PAUSE_SECONDS)
            logger.warning("worker exited (status %s) after %.0f s; restarting", status, ran)
            time.sleep(pause)
        return 0


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
    from tulia.preload import preload

    preload(turns=True)
    supervisor = Supervisor(argv)
    signal.signal(signal.SIGTERM, supervisor.stop)
    signal.signal(signal.SIGINT, supervisor.stop)
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
