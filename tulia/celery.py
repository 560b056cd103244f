"""The Celery application; tasks are discovered in every installed app's tasks.py."""

import functools
import os
from typing import Any

from celery import Celery
from celery.concurrency import get_implementation
from celery.concurrency.prefork import TaskPool
from celery.signals import worker_init
from celery.worker.consumer import Consumer
from kombu import Connection

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


class QuickReconnectConsumer(Consumer):
    """Celery's consumer, finding its broker again within a second of its return.

    Celery retries a lost broker connection after 2, 4, 6, 8… seconds (kombu's defaults;
    the consumer passes no intervals), so a Redis that was away for 10 s was found again
    12 or 20 s after it left, depending on how the restart fell against that ladder, and
    the customers of the turns it cut short waited that long (issue 21). Trying every
    second costs one refused connect per second while Redis is away.
    """

    def ensure_connected(self, conn: Connection) -> Connection:
        return super().ensure_connected(retry_every_second(conn))


def retry_every_second(conn: Connection) -> Connection:
    """`conn`, its connection retries 0, 0.5, then 1 s apart (once per connection)."""
    if not isinstance(conn.ensure_connection, functools.partial):
        # kombu's stubs say int; its retry loop adds and sleeps floats.
        step: Any = 0.5
        conn.ensure_connection = functools.partial(  # type: ignore[method-assign]
            conn.ensure_connection, interval_start=0, interval_step=step, interval_max=1
        )
    return conn


# Connects the request-id propagation hooks for every task.
from tulia.observability import celery_signals  # noqa: E402, F401
