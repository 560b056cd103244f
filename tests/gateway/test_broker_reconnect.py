"""The worker's consumer looks for a lost broker every second, not on kombu's 2, 4, 6…
ladder (bench/broker_reconnect.py measures what that does to recovery)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kombu import Connection
from kombu.exceptions import OperationalError
from kombu.utils.imports import symbol_by_name

from tulia.celery import QuickReconnectConsumer, app, retry_every_second


def test_the_worker_runs_the_quick_reconnect_consumer() -> None:
    assert symbol_by_name(app.conf.worker_consumer) is QuickReconnectConsumer
    assert app.conf.broker_connection_max_retries is None  # an outage never ends the worker


def test_retries_wait_at_most_a_second(tmp_path: Path) -> None:
    waits: list[float] = []
    conn = retry_every_second(Connection(f"redis+socket://{tmp_path / 'nobody.sock'}"))
    with pytest.raises(OperationalError):
        conn.ensure_connection(lambda _exc, interval: waits.append(interval), max_retries=3)
    assert waits == [0, 0.5, 1.0]
    # Wrapping twice changes nothing.
    assert retry_every_second(conn).ensure_connection is conn.ensure_connection
