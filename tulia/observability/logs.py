"""Structured JSON logs through structlog, for our loggers and Django's and Celery's alike.

Every line carries the bound identity (request_id, tenant_id, conversation_id). A
scrubbing step masks values under secret-looking keys and known secret shapes, so a
token passed to a log call by mistake does not reach the log store.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

import structlog

SECRET_KEYS = re.compile(
    r"(pass(word|key)?|secret|token|authorization|api[_-]?key|signature|credential)", re.I
)
SECRET_SHAPES = [
    re.compile(r"fernet:[A-Za-z0-9_\-=]+"),
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9]{16,}"),
    # Payment callback URLs carry a per-purpose secret (payments.routes), e.g. in
    # Django's "Bad Request: /payments/cb/<secret>/stk/" and the access log.
    re.compile(r"(?<=/cb/)[A-Za-z0-9_\-]{8,}(?=/)"),
]
MASK = "[redacted]"


def scrub_text(text: str) -> str:
    for shape in SECRET_SHAPES:
        text = shape.sub(MASK, text)
    return text


def _scrub_value(value: Any, depth: int = 0) -> Any:
    # Nested too: a logged headers dict or request payload carries its secrets one or
    # two levels down. The depth cap keeps a self-referencing structure from looping.
    if isinstance(value, str):
        return scrub_text(value)
    if depth > 5:
        return value
    if isinstance(value, Mapping):
        return {
            k: MASK if isinstance(k, str) and SECRET_KEYS.search(k) else _scrub_value(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_scrub_value(v, depth + 1) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    # Any other object would be rendered by its repr (Django's `request` extra shows the
    # path, and a payment callback path carries a secret): scrub that text instead.
    return scrub_text(repr(value))


def scrub_secrets(
    _logger: Any, _method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    for key, value in list(event.items()):
        if key != "event" and SECRET_KEYS.search(key):
            event[key] = MASK
        else:
            event[key] = _scrub_value(value)
    return event


SHARED_PROCESSORS: list[Any] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
    structlog.stdlib.ExtraAdder(),
]


def logging_config(level: str, *, json: bool) -> dict[str, Any]:
    """A dictConfig for Django's LOGGING: stdlib records rendered by structlog."""
    renderer = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "foreign_pre_chain": SHARED_PROCESSORS,
                "processors": [
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info,
                    scrub_secrets,
                    renderer,
                ],
            }
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "pgserver": {"level": "WARNING"},
            "celery.redirected": {"level": "WARNING"},
        },
    }


def configure_structlog() -> None:
    structlog.configure(
        processors=[
            *SHARED_PROCESSORS,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.get_logger(name)
    return logger


def silence_noisy_libraries() -> None:
    # httpx logs every request URL at INFO, and provider URLs can carry tokens.
    logging.getLogger("httpx").setLevel(logging.WARNING)
