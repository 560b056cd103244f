"""Process-wide Celery settings for the test suite (imported by tests/conftest.py).

- Each pytest-xdist process gets its own default queue: the processes share the embedded
  Redis broker but not the test database, so one process's worker must never take
  (and run against the wrong database) another process's tasks.
- A `setup_logging` receiver stops Celery's test workers from rewiring the root logger,
  so logging stays as Django configured it for every later test in the process.
"""

from __future__ import annotations

import os
from typing import Any

from celery.signals import setup_logging

from tulia.celery import app as celery_app

TEST_QUEUE = f"tulia-test-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
celery_app.conf.task_default_queue = TEST_QUEUE


def _keep_django_logging(**_: Any) -> None:
    """Connected only so Celery sees that logging is already configured."""


setup_logging.connect(_keep_django_logging, weak=False)
