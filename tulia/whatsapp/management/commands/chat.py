"""`manage.py chat --tenant kicks-nairobi [--phone +2547…] [--url http://127.0.0.1:8000]`"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.errors import NotFound
from tenants.phone import InvalidPhoneNumber, normalize_phone
from tulia.whatsapp.chat import SHORTCUTS, ChatSession

QUIET_LOGGERS = ("tulia.whatsapp.console", "celery", "tulia.security", "twilio", "httpx")


@contextmanager
def quiet_logs() -> Iterator[None]:
    """Keep the console sender's and Celery's log lines out of the conversation."""
    loggers = [logging.getLogger(name) for name in QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


class Command(BaseCommand):
    help = "Chat with a shop's WhatsApp bot from the terminal, through the signed webhook."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", nargs="?", help="the tenant's slug (or use --tenant)")
        parser.add_argument("--tenant", dest="tenant_slug", help="the tenant's slug")
        parser.add_argument("--phone", default="+254700123456", help="the customer's number")
        parser.add_argument(
            "--url",
            help="post over HTTP to a running server (its worker answers) instead of in-process",
        )
        parser.add_argument("--wait", type=float, default=15.0, help="seconds to await replies")

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["tenant_slug"] or options["slug"]
        if not slug:
            raise CommandError("name the shop: manage.py chat --tenant <slug>")
        try:
            phone = normalize_phone(options["phone"])
            session = ChatSession.open(slug, phone, options["url"])
        except (NotFound, InvalidPhoneNumber) as exc:
            raise CommandError(str(exc)) from exc
        self._banner(session)
        with quiet_logs():
            self._loop(session, options["wait"])

    def _banner(self, session: ChatSession) -> None:
        if sys.stdin.isatty():
            shortcuts = " ".join(SHORTCUTS)
            self.stdout.write(
                f"Chatting with {session.tenant.name} ({session.sender.phone_e164}) as "
                f"{session.phone}. Ctrl-D to leave. Try also: {shortcuts}"
            )

    def _loop(self, session: ChatSession, wait: float) -> None:
        bot = session.tenant.bot_name
        for raw in sys.stdin:
            line = raw.rstrip("\n")
            if sys.stdin.isatty():
                self.stdout.write(f"you: {line}")
            replies = session.send(line, wait)
            if not replies:
                self.stdout.write(f"{bot}: (no reply)")
            for reply in replies:
                self.stdout.write(f"{bot}: {reply}")
