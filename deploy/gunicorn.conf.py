"""Gunicorn settings for the web container (values come from the environment)."""

import os
import shutil
from pathlib import Path

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
accesslog = "-"
# Access lines go through the log scrubber: payment callback paths carry secrets.
logger_class = "tulia.observability.access_log.ScrubbingLogger"
max_requests = 2000  # recycle workers to bound slow leaks
max_requests_jitter = 200
# Load Django in the master and fork the workers from it, so they share its pages
# (tulia/preload.py); `when_ready` runs in the master after loading, before forking.
preload_app = True


def when_ready(server: object) -> None:
    from tulia.preload import preload

    preload(turns=False)


def on_starting(server: object) -> None:
    """Start every deployment with an empty metrics folder (stale pids skew counters)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        Path(folder).mkdir(parents=True, exist_ok=True)


def child_exit(server: object, worker: object) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
