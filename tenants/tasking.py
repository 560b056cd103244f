"""Celery tasks carry the tenant id and run inside its context before touching data."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar
from uuid import UUID

from tenants.context import tenant_context

P = ParamSpec("P")
R = TypeVar("R")


def in_tenant_context(func: Callable[P, R]) -> Callable[P, R]:
    """Wrap a task body whose first argument is `tenant_id` in that tenant's context."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        tenant_id = kwargs.get("tenant_id", args[0] if args else None)
        if not isinstance(tenant_id, (str, UUID)):
            raise TypeError(f"{func.__name__} needs tenant_id as its first argument")
        with tenant_context(tenant_id):
            return func(*args, **kwargs)

    return wrapper
