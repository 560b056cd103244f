"""`manage.py console_screenshots --base-url URL --username U --password P`: the shop
console's pages as PNGs in docs/screenshots (for the README), from a running Tulia."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from tulia.console.screenshots import shoot


class Command(BaseCommand):
    help = "Photograph the shop console's pages in Chromium into docs/screenshots."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--username", required=True, help="a shop owner's login")
        parser.add_argument("--password", required=True)
        parser.add_argument("--label", default="console")
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "docs" / "screenshots"))
        parser.add_argument(
            "--widths", default="1366,390", help="viewport widths in CSS px, comma-separated"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        written = shoot(
            options["base_url"].rstrip("/"),
            options["username"],
            options["password"],
            Path(options["out"]),
            options["label"],
            widths=tuple(int(width) for width in options["widths"].split(",")),
        )
        for path in written:
            self.stdout.write(str(path))
