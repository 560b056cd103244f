"""Typed readers for settings that come from the environment.

A bad value stops the process at start-up with the variable's name in the message,
instead of surfacing later as a confusing runtime error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence


class ImproperEnvironment(ValueError):
    """An environment variable holds a value the platform cannot use."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperEnvironment(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperEnvironment(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperEnvironment(f"{name} must be >= {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ImproperEnvironment(f"{name} must be a number, got {raw!r}") from exc
    if value < minimum:
        raise ImproperEnvironment(f"{name} must be >= {minimum}, got {value}")
    return value


def env_list(name: str, default: Sequence[str] = ()) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, choices: Sequence[str], default: str) -> str:
    value = os.environ.get(name, default) or default
    if value not in choices:
        raise ImproperEnvironment(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value
