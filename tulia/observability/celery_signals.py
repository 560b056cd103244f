"""Carry the request id (and tenant/conversation) from the publisher into Celery tasks."""

from __future__ import annotations

from typing import Any

import structlog
from celery.signals import before_task_publish, task_postrun, task_prerun

CARRIED = ("request_id", "tenant_id", "conversation_id")
HEADER = "tulia_trace"


@before_task_publish.connect
def _attach_trace(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is None:
        return
    bound = structlog.contextvars.get_contextvars()
    headers[HEADER] = {key: str(bound[key]) for key in CARRIED if bound.get(key)}


@task_prerun.connect
def _bind_trace(task: Any = None, **_: Any) -> None:
    structlog.contextvars.clear_contextvars()
    trace = getattr(getattr(task, "request", None), HEADER, None) or {}
    structlog.contextvars.bind_contextvars(
        **{key: value for key, value in trace.items() if key in CARRIED},
        task=getattr(task, "name", "?"),
    )


@task_postrun.connect
def _clear_trace(**_: Any) -> None:
    structlog.contextvars.clear_contextvars()
