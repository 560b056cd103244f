"""A process and all its descendants (gunicorn's workers, Celery's pool children)."""

from __future__ import annotations

import psutil


def family(pid: int) -> list[psutil.Process]:
    """The process and its descendants; empty when it has already gone."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
