"""The Celery application; tasks are discovered in every installed app's tasks.py."""

import os
from typing import Any

from celery import Celery
from celery.concurrency import get_implementation
from celery.concurrency.prefork import TaskPool
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")

app = Celery("tulia")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _preload_before_fork(sender: Any, **_: Any) -> None:
    """A prefork worker loads the turn engine once in its main process, before the pool
    forks, so the pool children share it (tulia/preload.py). Thread and solo pools run
    tasks in that one process and load what they need on first use."""
    if get_implementation(sender.pool_cls) is TaskPool:
        from tulia.preload import preload

        preload(turns=True)


# Connects the request-id propagation hooks for every task.
from tulia.observability import celery_signals  # noqa: E402, F401
